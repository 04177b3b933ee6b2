#include "common/backoff.h"

#include <gtest/gtest.h>

namespace petname {
namespace {

using Ms = std::chrono::milliseconds;

TEST(BackoffTest, WithoutJitterDoublesThenCaps) {
  Backoff b(Ms(100), Ms(500));
  EXPECT_EQ(b.Next(), Ms(100));
  EXPECT_EQ(b.Next(), Ms(200));
  EXPECT_EQ(b.Next(), Ms(400));
  EXPECT_EQ(b.Next(), Ms(500));
  EXPECT_EQ(b.Next(), Ms(500));
  EXPECT_EQ(b.attempts(), 5);
}

TEST(BackoffTest, JitteredDelaysGrowAndStopAtTheCap) {
  Backoff b(Ms(100), Ms(1000), 7);
  const int64_t ceilings[] = {100, 200, 400, 800, 1000, 1000};
  for (int64_t ceiling : ceilings) {
    int64_t d = b.Next().count();
    EXPECT_GE(d, ceiling / 2);
    EXPECT_LE(d, ceiling);
  }
  EXPECT_EQ(b.attempts(), 6);
}

TEST(BackoffTest, ResetStartsOver) {
  Backoff b(Ms(100), Ms(100000), 1);
  for (int i = 0; i < 10; ++i) b.Next();
  b.Reset();
  EXPECT_LE(b.Next().count(), 100);
}

TEST(BackoffTest, ManyAttemptsDoNotOverflow) {
  Backoff jittered(Ms(5), Ms(30000), 3);
  Backoff plain(Ms(5), Ms(30000));
  for (int i = 0; i < 200; ++i) {
    int64_t d = jittered.Next().count();
    ASSERT_GE(d, 0);
    ASSERT_LE(d, 30000);
    ASSERT_LE(plain.Next().count(), 30000);
  }
}

TEST(BackoffTest, JitterSpreadsRetriesOfDifferentClients) {
  Backoff a(Ms(1000), Ms(60000), 1);
  Backoff b(Ms(1000), Ms(60000), 2);
  bool differ = false;
  for (int i = 0; i < 5; ++i) differ |= a.Next() != b.Next();
  EXPECT_TRUE(differ);
}

TEST(BackoffTest, NeverPastTheDeadline) {
  Backoff b(Ms(1000), Ms(5000));
  EXPECT_EQ(b.Next(Ms(300)), Ms(300));
  EXPECT_EQ(b.Next(Ms(0)), Ms(0));
  EXPECT_EQ(b.Next(Ms(-5)), Ms(0));
  EXPECT_EQ(b.attempts(), 1);  // nothing left: the schedule does not advance
  EXPECT_EQ(b.Next(Ms(100000)), Ms(2000));
}

}  // namespace
}  // namespace petname
