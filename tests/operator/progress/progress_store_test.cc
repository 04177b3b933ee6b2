#include "operator/progress/progress_store.h"

#include <gtest/gtest.h>

namespace petname::progress {
namespace {

api::Progress AtEpoch(int64_t epoch) {
  api::Progress p;
  p.epoch = epoch;
  return p;
}

TEST(ProgressStoreTest, PutReportsChangesOnly) {
  ProgressStore store;
  EXPECT_TRUE(store.Put("ns/a", AtEpoch(1), 100));
  EXPECT_FALSE(store.Put("ns/a", AtEpoch(1), 200));  // same values: no new status write
  api::JobStatus status;
  store.Apply("ns/a", api::JobStatus(), &status);
  ASSERT_TRUE(status.progress);
  EXPECT_EQ(status.progress->epoch, 1);
  EXPECT_EQ(status.progress->update_time, std::optional<int64_t>(100));
  EXPECT_TRUE(store.Put("ns/a", AtEpoch(2), 300));
  store.Apply("ns/a", api::JobStatus(), &status);
  EXPECT_EQ(status.progress->update_time, std::optional<int64_t>(300));
}

TEST(ProgressStoreTest, ApplyKeepsTheWrittenProgressWithoutAScrape) {
  ProgressStore store;
  api::JobStatus current;
  current.phase = api::JobPhase::kSucceeded;
  current.progress = AtEpoch(5);
  api::JobStatus status;
  status.phase = api::JobPhase::kSucceeded;
  store.Apply("ns/a", current, &status);
  ASSERT_TRUE(status.progress);
  EXPECT_EQ(status.progress->epoch, 5);
  api::JobStatus none;
  store.Apply("ns/b", api::JobStatus(), &none);
  EXPECT_FALSE(none.progress);
}

TEST(ProgressStoreTest, RetainDropsDeletedJobs) {
  ProgressStore store;
  store.Put("ns/a", AtEpoch(1), 100);
  store.Put("ns/b", AtEpoch(1), 100);
  store.Retain({"ns/b"});
  api::JobStatus status;
  store.Apply("ns/a", api::JobStatus(), &status);
  EXPECT_FALSE(status.progress);
  store.Apply("ns/b", api::JobStatus(), &status);
  EXPECT_TRUE(status.progress);
}

}  // namespace
}  // namespace petname::progress
