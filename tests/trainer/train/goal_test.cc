#include "trainer/train/goal.h"

#include <gtest/gtest.h>

#include <cmath>

namespace petname::train {
namespace {

TEST(GoalTest, ParsesBothMetrics) {
  Goal g;
  ASSERT_TRUE(ParseGoal("validationLoss=1.9", &g).ok());
  EXPECT_TRUE(g.set);
  EXPECT_EQ(g.metric, GoalMetric::kValidationLoss);
  EXPECT_EQ(g.value, 1.9);
  EXPECT_EQ(DescribeGoal(g), "validationLoss <= 1.9");
  ASSERT_TRUE(ParseGoal("validationAccuracy=0.5", &g).ok());
  EXPECT_EQ(g.metric, GoalMetric::kValidationAccuracy);
  EXPECT_EQ(DescribeGoal(g), "validationAccuracy >= 0.5");
}

TEST(GoalTest, RefusesBadText) {
  Goal g;
  for (const char* bad : {"", "validationLoss", "validationLoss=", "loss=1", "validationLoss=x",
                          "validationLoss=1x", "validationLoss=-0.5", "validationAccuracy=1.01",
                          "validationLoss=nan", "validationLoss=inf"}) {
    Status st = ParseGoal(bad, &g);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("--goal"), std::string::npos) << st.message();
  }
  EXPECT_FALSE(g.set);
}

TEST(GoalTest, LossIsMetAtOrBelowAccuracyAtOrAbove) {
  Goal loss{true, GoalMetric::kValidationLoss, 1.5, false};
  EXPECT_TRUE(GoalMet(loss, 1.5, 0));
  EXPECT_TRUE(GoalMet(loss, 1.4, 0));
  EXPECT_FALSE(GoalMet(loss, 1.6, 1));
  EXPECT_FALSE(GoalMet(loss, NAN, 1));
  Goal accuracy{true, GoalMetric::kValidationAccuracy, 0.5, false};
  EXPECT_TRUE(GoalMet(accuracy, 9, 0.5));
  EXPECT_FALSE(GoalMet(accuracy, 0, 0.49));
  EXPECT_FALSE(GoalMet(accuracy, 0, NAN));
  EXPECT_FALSE(GoalMet(Goal{}, 0, 1));
}

TEST(GoalTest, FirstRecordMeetingTheGoalUpToTheResumedEpoch) {
  Goal loss{true, GoalMetric::kValidationLoss, 1.5, false};
  std::vector<metrics::EpochRecord> records(4);
  const double losses[] = {2.0, 1.4, 1.3, 1.2};
  for (int i = 0; i < 4; ++i) {
    records[i].epoch = i + 1;
    records[i].validation_loss = losses[i];
  }
  // A repeated epoch (a run that died after logging it) still counts once, at its epoch.
  records.push_back(records[2]);
  const metrics::EpochRecord* first = FirstRecordMeetingGoal(loss, records, 4);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->epoch, 2);
  EXPECT_EQ(FirstRecordMeetingGoal(loss, records, 1), nullptr);
  EXPECT_EQ(FirstRecordMeetingGoal(Goal{}, records, 4), nullptr);
}

}  // namespace
}  // namespace petname::train
