#include "operator/jobs/progress_events.h"

#include <gtest/gtest.h>

namespace petname::controller {
namespace {

api::JobStatus WithFailures(std::optional<int64_t> failures) {
  api::JobStatus s;
  s.progress = api::Progress{};
  s.progress->checkpoint_failures = failures;
  s.progress->last_checkpoint_time = 1795000000;
  return s;
}

TEST(ProgressEventsTest, AWarningEachTimeTheFailureCountChanges) {
  std::vector<JobEvent> events = ProgressEvents(WithFailures(std::nullopt), WithFailures(1));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].reason, "CheckpointFailed");
  EXPECT_NE(events[0].message.find("1 failed saves in this run"), std::string::npos);
  EXPECT_NE(events[0].message.find("2026-11-18T"), std::string::npos) << events[0].message;
  EXPECT_EQ(ProgressEvents(WithFailures(1), WithFailures(2)).size(), 1u);
  // A new run after a gang restart counts from 0 again.
  EXPECT_EQ(ProgressEvents(WithFailures(3), WithFailures(1)).size(), 1u);
}

TEST(ProgressEventsTest, NothingWithoutANewFailure) {
  EXPECT_TRUE(ProgressEvents(WithFailures(2), WithFailures(2)).empty());
  EXPECT_TRUE(ProgressEvents(WithFailures(2), WithFailures(std::nullopt)).empty());
  EXPECT_TRUE(ProgressEvents(api::JobStatus{}, api::JobStatus{}).empty());
  EXPECT_TRUE(ProgressEvents(api::JobStatus{}, WithFailures(0)).empty());
}

}  // namespace
}  // namespace petname::controller
