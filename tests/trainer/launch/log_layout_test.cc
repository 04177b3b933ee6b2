#include "trainer/launch/log_layout.h"

#include <gtest/gtest.h>

namespace petname::launch {
namespace {

TEST(LogLayoutTest, NamesRoundTripAndOnlyTheirOwnFormParses) {
  EXPECT_EQ(AttemptDirName(0), "attempt-0");
  EXPECT_EQ(AttemptDirName(12), "attempt-12");
  EXPECT_EQ(RankLogName(3), "rank-3.log");
  EXPECT_EQ(RankTailName(3, 0), "rank-3.tail.log");
  EXPECT_EQ(RankTailName(3, 1), "rank-3.tail.1.log");
  int n = -1;
  EXPECT_TRUE(ParseAttemptDirName("attempt-12", &n));
  EXPECT_EQ(n, 12);
  EXPECT_TRUE(ParseRankLogName("rank-0.log", &n));
  EXPECT_EQ(n, 0);
  for (const char* bad : {"attempt-", "attempt-01", "attempt--1", "attempt-1x", "attempt-9999999",
                          "Attempt-1", "attempt-1 "}) {
    EXPECT_FALSE(ParseAttemptDirName(bad, &n)) << bad;
  }
  for (const char* bad : {"rank-1.tail.log", "rank-1.tail.1.log", "rank-.log", "rank-1.log.1",
                          "rank-1", "rank-+1.log"}) {
    EXPECT_FALSE(ParseRankLogName(bad, &n)) << bad;
  }
}

TEST(LogLayoutTest, NextAttemptFollowsTheHighest) {
  EXPECT_EQ(NextAttempt({}), 0);
  EXPECT_EQ(NextAttempt({0}), 1);
  EXPECT_EQ(NextAttempt({7, 2, 4}), 8);
}

TEST(LogLayoutTest, TheNewestAttemptsStayWithTheCurrentOne) {
  EXPECT_EQ(AttemptsToRemove({}, 0, 10), std::vector<int>{});
  EXPECT_EQ(AttemptsToRemove({0, 1, 2}, 3, 3), (std::vector<int>{0}));
  EXPECT_EQ(AttemptsToRemove({5, 1, 3, 2, 4}, 5, 3), (std::vector<int>{1, 2}));
  // An attempt numbered above the current one (an earlier job of the same name) counts too,
  // and the current one is never removed.
  EXPECT_EQ(AttemptsToRemove({0, 9, 10}, 0, 2), (std::vector<int>{9}));
  EXPECT_EQ(AttemptsToRemove({0, 1}, 1, 1), (std::vector<int>{0}));
  EXPECT_EQ(AttemptsToRemove({0, 1}, 1, 0), (std::vector<int>{0}));
}

}  // namespace
}  // namespace petname::launch
