#include "common/time_util.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

TEST(TimeUtilTest, Rfc3339WithAndWithoutFractions) {
  auto t = std::chrono::system_clock::from_time_t(1795000000) + std::chrono::microseconds(123456);
  EXPECT_EQ(Rfc3339(t), "2026-11-18T11:06:40Z");
  EXPECT_EQ(Rfc3339(t, 3), "2026-11-18T11:06:40.123Z");
  EXPECT_EQ(Rfc3339(t, 6), "2026-11-18T11:06:40.123456Z");
}

}  // namespace
}  // namespace petname
