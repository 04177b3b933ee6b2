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

// Rounds in which a target that always stalls is read: 1, 3, 6, 11, then every 9th.
TEST(ScrapeScheduleTest, AStalledTargetIsSkippedForDoublingRoundsUpToTheCap) {
  ScrapeSchedule s;
  std::vector<int> read;
  for (int round = 1; round <= 30; ++round) {
    const Keys plan = s.Plan({"stuck", "ok"});
    for (const std::string& key : plan) s.Record(key, key == "stuck");
    if (plan.size() == 2) read.push_back(round);
  }
  EXPECT_EQ(read, (std::vector<int>{1, 3, 6, 11, 20, 29}));
}

TEST(ScrapeScheduleTest, TargetsThatStalledComeLastAndAnAnswerClearsTheBackoff) {
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

TEST(ScrapeScheduleTest, AGoneTargetIsForgotten) {
  ScrapeSchedule s;
  s.Plan({"x"});
  s.Record("x", true);
  s.Retain({});
  EXPECT_EQ(s.Plan({"x"}), (Keys{"x"}));  // a new job of the same name starts afresh
}

}  // namespace
}  // namespace petname::progress
