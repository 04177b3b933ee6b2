#include "operator/metrics/job_transitions.h"

#include <gtest/gtest.h>

namespace petname::operator_metrics {
namespace {

using api::JobPhase;

api::JobStatus S(JobPhase phase, int restarts = 0) {
  api::JobStatus s;
  s.phase = phase;
  s.restarts = restarts;
  return s;
}

TEST(JobTransitionsTest, FirstStatusIsACreation) {
  JobTransitions t = CountTransitions(api::JobStatus(), S(JobPhase::kPending));
  EXPECT_TRUE(t.created);
  EXPECT_FALSE(t.succeeded);
  EXPECT_FALSE(t.failed);
  EXPECT_EQ(t.restarts, 0);
}

TEST(JobTransitionsTest, FinalPhasesCountOnceOnTheTransition) {
  EXPECT_TRUE(CountTransitions(S(JobPhase::kRunning), S(JobPhase::kSucceeded)).succeeded);
  EXPECT_FALSE(CountTransitions(S(JobPhase::kSucceeded), S(JobPhase::kSucceeded)).succeeded);
  EXPECT_TRUE(CountTransitions(S(JobPhase::kRunning), S(JobPhase::kFailed)).failed);
  EXPECT_FALSE(CountTransitions(S(JobPhase::kFailed), S(JobPhase::kFailed)).failed);
  EXPECT_FALSE(CountTransitions(S(JobPhase::kRunning), S(JobPhase::kRunning)).created);
}

TEST(JobTransitionsTest, RestartsCountTheIncrease) {
  EXPECT_EQ(CountTransitions(S(JobPhase::kRunning, 1), S(JobPhase::kRestarting, 3)).restarts, 2);
  EXPECT_EQ(CountTransitions(S(JobPhase::kRunning, 3), S(JobPhase::kRunning, 3)).restarts, 0);
  EXPECT_EQ(CountTransitions(S(JobPhase::kRunning, 3), S(JobPhase::kRunning, 0)).restarts, 0);
}

}  // namespace
}  // namespace petname::operator_metrics
