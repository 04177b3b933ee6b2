#include "operator/kube/backoff.h"

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

using std::chrono::milliseconds;

TEST(BackoffTest, DelaysGrowWithJitterAndStopAtTheCap) {
  Backoff b(milliseconds(100), milliseconds(1000), 7);
  int64_t ceilings[] = {100, 200, 400, 800, 1000, 1000};
  for (int64_t ceiling : ceilings) {
    int64_t d = b.Next().count();
    EXPECT_GE(d, ceiling / 2);
    EXPECT_LE(d, ceiling);
  }
  EXPECT_EQ(b.attempts(), 6);
}

TEST(BackoffTest, ResetStartsOver) {
  Backoff b(milliseconds(100), milliseconds(100000), 1);
  for (int i = 0; i < 10; ++i) b.Next();
  b.Reset();
  EXPECT_LE(b.Next().count(), 100);
}

TEST(BackoffTest, ManyAttemptsDoNotOverflow) {
  Backoff b(milliseconds(5), milliseconds(30000), 3);
  for (int i = 0; i < 200; ++i) {
    int64_t d = b.Next().count();
    ASSERT_GE(d, 0);
    ASSERT_LE(d, 30000);
  }
}

TEST(BackoffTest, JitterSpreadsRetriesOfDifferentClients) {
  Backoff a(milliseconds(1000), milliseconds(60000), 1);
  Backoff b(milliseconds(1000), milliseconds(60000), 2);
  bool differ = false;
  for (int i = 0; i < 5; ++i) differ |= a.Next() != b.Next();
  EXPECT_TRUE(differ);
}

}  // namespace
}  // namespace petname::kube
