#include "operator/progress/scrape_schedule.h"

#include <gtest/gtest.h>

namespace petname::progress {
namespace {

using Keys = std::vector<std::string>;

TEST(ScrapeScheduleTest, HealthyTargetsAreReadEveryRoundInTheirOrder) {
  ScrapeSchedule s;
  for (int round = 0; round < 5; ++round) {
    EXPECT_EQ(s.Plan({"a", "b", "c"}), (Keys{"a", "b", "c"}));
    s.Record("a", false);
    s.Record("b", false);
    s.Record("c", false);
  }
}

// Rounds in which a target whose scrapes are always costly is read: 1, 3, 6, 11, then every 9th.
TEST(ScrapeScheduleTest, ACostlyTargetIsSkippedForDoublingRoundsUpToTheCap) {
  ScrapeSchedule s;
  std::vector<int> read;
  for (int round = 1; round <= 30; ++round) {
    const Keys plan = s.Plan({"stuck", "ok"});
    for (const std::string& key : plan) s.Record(key, key == "stuck");
    if (plan.size() == 2) read.push_back(round);
  }
  EXPECT_EQ(read, (std::vector<int>{1, 3, 6, 11, 20, 29}));
}

TEST(ScrapeScheduleTest, CostlyTargetsComeLastAndACheapScrapeClearsTheBackoff) {
  ScrapeSchedule s;
  EXPECT_EQ(s.Plan({"x", "y", "z"}), (Keys{"x", "y", "z"}));
  s.Record("x", true);
  s.Record("y", false);
  s.Record("z", false);
  EXPECT_EQ(s.Plan({"x", "y", "z"}), (Keys{"y", "z"}));  // x skips one round
  EXPECT_EQ(s.Plan({"x", "y", "z"}), (Keys{"y", "z", "x"}));
  s.Record("x", false);
  EXPECT_EQ(s.Plan({"x", "y", "z"}), (Keys{"x", "y", "z"}));
}

// A scrape that gave no progress is costly however fast it failed (a 500, a refused connection);
// one that gave progress only when it took half the timeout or more.
TEST(ScrapeScheduleTest, AScrapeIsCostlyWhenItGaveNoProgressOrTookHalfTheTimeout) {
  using std::chrono::milliseconds;
  const milliseconds timeout(5000);
  EXPECT_TRUE(Costly(false, milliseconds(0), timeout));
  EXPECT_TRUE(Costly(false, milliseconds(4900), timeout));  // a 500 just before the timeout
  EXPECT_TRUE(Costly(false, milliseconds(5000), timeout));  // no answer in time
  EXPECT_FALSE(Costly(true, milliseconds(0), timeout));
  EXPECT_FALSE(Costly(true, milliseconds(2499), timeout));
  EXPECT_TRUE(Costly(true, milliseconds(2500), timeout));  // progress, answered slowly
  EXPECT_TRUE(Costly(true, milliseconds(4900), timeout));
}

TEST(ScrapeScheduleTest, AGoneTargetIsForgotten) {
  ScrapeSchedule s;
  s.Plan({"x"});
  s.Record("x", true);
  s.Retain({});
  EXPECT_EQ(s.Plan({"x"}), (Keys{"x"}));  // a new job of the same name starts afresh
}

}  // namespace
}  // namespace petname::progress
