#include "operator/kube/work_queue.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace petname::kube {
namespace {

using std::chrono::milliseconds;

TEST(WorkQueueTest, DuplicateAddsAreQueuedOnce) {
  WorkQueue q(milliseconds(1), milliseconds(10));
  q.Add("ns/a");
  q.Add("ns/a");
  q.Add("ns/b");
  EXPECT_EQ(q.Len(), 2u);
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "ns/a");
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "ns/b");
}

TEST(WorkQueueTest, CountsNewAddsAndReportsTheWait) {
  WorkQueue q(milliseconds(1), milliseconds(10));
  q.Add("ns/a");
  q.Add("ns/a");
  q.Add("ns/b");
  EXPECT_EQ(q.Stats().adds, 2);
  std::string k;
  WorkQueue::Clock::duration waited = WorkQueue::Clock::duration::min();
  ASSERT_TRUE(q.Get(&k, &waited));
  EXPECT_GE(waited, WorkQueue::Clock::duration::zero());
  q.Done(k);
  q.Add(k);
  EXPECT_EQ(q.Stats().adds, 3);
}

TEST(WorkQueueTest, KeyAddedWhileProcessingIsRequeuedOnlyAfterDone) {
  WorkQueue q(milliseconds(1), milliseconds(10));
  q.Add("k");
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  q.Add("k");
  EXPECT_EQ(q.Len(), 0u);  // not handed out while being processed
  q.Done("k");
  EXPECT_EQ(q.Len(), 1u);
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "k");
  q.Done("k");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueTest, AddAfterAndRateLimitedArriveLater) {
  WorkQueue q(milliseconds(5), milliseconds(20));
  q.AddAfter("later", milliseconds(20));
  q.AddRateLimited("retry");
  EXPECT_EQ(q.Len(), 2u);
  std::set<std::string> got;
  std::string k;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(q.Get(&k));
    got.insert(k);
    q.Done(k);
  }
  EXPECT_EQ(got, (std::set<std::string>{"later", "retry"}));
}

TEST(WorkQueueTest, StatsCountDepthRetriesAndWorkInProgress) {
  WorkQueue q(milliseconds(50), milliseconds(100));
  q.Add("a");
  q.Add("b");
  q.AddRateLimited("c");
  QueueStats s = q.Stats();
  EXPECT_EQ(s.depth, 2);
  EXPECT_EQ(s.delayed, 1);
  EXPECT_EQ(s.retries, 1);
  EXPECT_EQ(s.unfinished_work_seconds, 0);
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  ASSERT_TRUE(q.Get(&k));
  std::this_thread::sleep_for(milliseconds(20));
  s = q.Stats();
  EXPECT_EQ(s.depth, 0);
  EXPECT_GE(s.longest_running_seconds, 0.02);
  EXPECT_GE(s.unfinished_work_seconds, 2 * 0.02);
  EXPECT_LE(s.longest_running_seconds, s.unfinished_work_seconds);
  q.Done("a");
  q.Done("b");
  s = q.Stats();
  EXPECT_EQ(s.unfinished_work_seconds, 0);
  EXPECT_EQ(s.longest_running_seconds, 0);
}

TEST(WorkQueueTest, ShutDownWakesBlockedWorkers) {
  WorkQueue q(milliseconds(1), milliseconds(10));
  std::atomic<int> stopped{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      std::string k;
      while (q.Get(&k)) q.Done(k);
      ++stopped;
    });
  }
  q.ShutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(stopped.load(), 3);
}

TEST(WorkQueueTest, NeverTwoWorkersOnOneKey) {
  WorkQueue q(milliseconds(1), milliseconds(10));
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  std::atomic<int> handled{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&] {
      std::string k;
      while (q.Get(&k)) {
        int now = ++in_flight;
        int seen = max_in_flight.load();
        while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::yield();
        --in_flight;
        ++handled;
        q.Done(k);
      }
    });
  }
  for (int i = 0; i < 2000; ++i) q.Add("same");
  while (q.Len() > 0) std::this_thread::yield();
  q.ShutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(max_in_flight.load(), 1);
  EXPECT_GE(handled.load(), 1);
}

}  // namespace
}  // namespace petname::kube
