// WorkQueue: the de-duplicating, rate-limited queue of object keys ("namespace/name") that feeds
// the reconcile workers, with client-go's workqueue contract:
//  - a key is queued at most once however often it is added;
//  - a key handed out by Get() is not handed out again until Done(key): never two reconciles of
//    one key at once; a key added while being processed is queued again by Done();
//  - AddRateLimited() re-adds after a per-key exponential delay (with jitter) that grows with
//    each failure until Forget(key); AddAfter() re-adds after a fixed delay.
// Thread-safe. ShutDown() makes Get() return false once nothing is left to hand out.
// Stats() reports what client-go's workqueue metrics report (depth, adds, retries, work in
// progress).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "common/backoff.h"

namespace petname::kube {

// A snapshot of a WorkQueue, in client-go's workqueue metric terms.
struct QueueStats {
  int64_t depth = 0;    // keys ready to be handed out
  int64_t delayed = 0;  // keys waiting for their AddAfter/AddRateLimited delay
  int64_t adds = 0;     // keys newly queued so far (adds of a key already queued do not count)
  int64_t retries = 0;  // AddRateLimited calls so far
  double unfinished_work_seconds = 0;  // summed over the keys being processed, since their Get
  double longest_running_seconds = 0;  // the longest of those
};

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;

  WorkQueue(std::chrono::milliseconds base_delay, std::chrono::milliseconds max_delay);

  void Add(const std::string& key);
  void AddAfter(const std::string& key, Clock::duration delay);
  void AddRateLimited(const std::string& key);
  // Clears the failure history of `key` (its next AddRateLimited waits the base delay).
  void Forget(const std::string& key);

  // Blocks until a key is ready (true) or the queue is shut down (false). `waited`, when given,
  // receives how long the key was queued (from its Add, or the end of its delay).
  bool Get(std::string* key, Clock::duration* waited = nullptr);
  void Done(const std::string& key);

  void ShutDown();
  // Keys queued or waiting for their delay (not counting those being processed).
  size_t Len();
  QueueStats Stats();

 private:
  void AddLocked(const std::string& key);
  void PromoteDueLocked(Clock::time_point now);

  const std::chrono::milliseconds base_delay_;
  const std::chrono::milliseconds max_delay_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;
  std::map<std::string, Clock::time_point> queued_at_;
  int64_t adds_ = 0;
  int64_t retries_ = 0;
  std::map<std::string, Clock::time_point> processing_;  // key -> when Get handed it out
  std::multimap<Clock::time_point, std::string> waiting_;
  std::map<std::string, Backoff> failures_;
  bool shutting_down_ = false;
};

}  // namespace petname::kube
