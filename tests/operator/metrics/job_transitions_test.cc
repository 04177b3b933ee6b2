#include "operator/metrics/job_transitions.h"

#include <gtest/gtest.h>

namespace petname::operator_metrics {
namespace {

using Json = nlohmann::json;

TEST(JobTransitionsTest, FirstStatusIsACreation) {
  JobTransitions t = CountTransitions(Json::object(), {{"phase", "Pending"}});
  EXPECT_TRUE(t.created);
  EXPECT_FALSE(t.succeeded);
  EXPECT_FALSE(t.failed);
  EXPECT_EQ(t.restarts, 0);
  EXPECT_TRUE(CountTransitions(nullptr, {{"phase", "Pending"}}).created);
}

TEST(JobTransitionsTest, FinalPhasesCountOnceOnTheTransition) {
  EXPECT_TRUE(CountTransitions({{"phase", "Running"}}, {{"phase", "Succeeded"}}).succeeded);
  EXPECT_FALSE(CountTransitions({{"phase", "Succeeded"}}, {{"phase", "Succeeded"}}).succeeded);
  EXPECT_TRUE(CountTransitions({{"phase", "Running"}}, {{"phase", "Failed"}}).failed);
  EXPECT_FALSE(CountTransitions({{"phase", "Failed"}}, {{"phase", "Failed"}}).failed);
  EXPECT_FALSE(CountTransitions({{"phase", "Running"}}, {{"phase", "Running"}}).created);
}

TEST(JobTransitionsTest, RestartsCountTheIncrease) {
  EXPECT_EQ(CountTransitions({{"phase", "Running"}, {"restarts", 1}},
                             {{"phase", "Restarting"}, {"restarts", 3}})
                .restarts,
            2);
  EXPECT_EQ(CountTransitions({{"restarts", 3}}, {{"restarts", 3}}).restarts, 0);
  EXPECT_EQ(CountTransitions({{"restarts", 3}}, Json::object()).restarts, 0);
}

}  // namespace
}  // namespace petname::operator_metrics
