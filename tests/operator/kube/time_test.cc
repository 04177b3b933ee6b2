#include "operator/kube/time.h"

#include <gtest/gtest.h>

#include <limits>

namespace petname::kube {
namespace {

TEST(KubeTimeTest, FormatsAndParsesSeconds) {
  EXPECT_EQ(FormatTime(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(1795000000), "2026-11-18T11:06:40Z");
  int64_t t = 0;
  ASSERT_TRUE(ParseTime("2026-11-18T11:06:40.123Z", &t));
  EXPECT_EQ(t, 1795000000);
  EXPECT_FALSE(ParseTime("2026-11-17 09:06:40", &t));
}

// Times beyond what a nanosecond clock holds (the year 2262) and the ends of int64_t format as
// the ends of RFC 3339's range, without overflow (the sanitizer build runs this under UBSan).
TEST(KubeTimeTest, HugeTimesAreClampedToTheRangeOfRfc3339) {
  EXPECT_EQ(FormatTime(kMaxUnixSeconds), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(std::numeric_limits<int64_t>::max()), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(int64_t{1} << 40), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatTime(kMinUnixSeconds), "0001-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(std::numeric_limits<int64_t>::min()), "0001-01-01T00:00:00Z");
  int64_t t = 0;
  ASSERT_TRUE(ParseTime(FormatTime(kMaxUnixSeconds), &t));
  EXPECT_EQ(t, kMaxUnixSeconds);
}

}  // namespace
}  // namespace petname::kube
