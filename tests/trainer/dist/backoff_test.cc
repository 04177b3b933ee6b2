#include "trainer/dist/backoff.h"

#include <gtest/gtest.h>

namespace petname::dist {
namespace {

using Ms = std::chrono::milliseconds;

TEST(BackoffTest, GrowsThenCaps) {
  Backoff b(Ms(100), Ms(500), 2.0);
  const Ms left(100000);
  EXPECT_EQ(b.Next(left), Ms(100));
  EXPECT_EQ(b.Next(left), Ms(200));
  EXPECT_EQ(b.Next(left), Ms(400));
  EXPECT_EQ(b.Next(left), Ms(500));
  EXPECT_EQ(b.Next(left), Ms(500));
}

TEST(BackoffTest, NeverPastTheDeadline) {
  Backoff b(Ms(1000), Ms(5000), 2.0);
  EXPECT_EQ(b.Next(Ms(300)), Ms(300));
  EXPECT_EQ(b.Next(Ms(0)), Ms(0));
  EXPECT_EQ(b.Next(Ms(-5)), Ms(0));
}

}  // namespace
}  // namespace petname::dist
