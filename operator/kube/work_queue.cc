#include "operator/kube/work_queue.h"

#include <algorithm>
#include <functional>

namespace petname::kube {

WorkQueue::WorkQueue(std::chrono::milliseconds base_delay, std::chrono::milliseconds max_delay)
    : base_delay_(base_delay), max_delay_(max_delay) {}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(key);
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || !dirty_.insert(key).second) return;
  ++adds_;
  queued_at_[key] = Clock::now();
  if (processing_.count(key)) return;  // Done() queues it
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::AddAfter(const std::string& key, Clock::duration delay) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutting_down_) return;
  if (delay <= Clock::duration::zero()) {
    AddLocked(key);
    return;
  }
  waiting_.emplace(Clock::now() + delay, key);
  cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  Clock::duration delay;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++retries_;
    auto it = failures_.find(key);
    if (it == failures_.end()) {
      it = failures_.emplace(key, Backoff(base_delay_, max_delay_, std::hash<std::string>()(key)))
               .first;
    }
    delay = it->second.Next();
  }
  AddAfter(key, delay);
}

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.erase(key);
}

void WorkQueue::PromoteDueLocked(Clock::time_point now) {
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    AddLocked(key);
  }
}

bool WorkQueue::Get(std::string* key, Clock::duration* waited) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    PromoteDueLocked(Clock::now());
    if (!queue_.empty()) break;
    if (shutting_down_) return false;
    if (waiting_.empty()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, waiting_.begin()->first);
    }
  }
  *key = queue_.front();
  queue_.pop_front();
  dirty_.erase(*key);
  auto queued = queued_at_.find(*key);
  if (queued != queued_at_.end()) {
    if (waited != nullptr) *waited = Clock::now() - queued->second;
    queued_at_.erase(queued);
  }
  processing_[*key] = Clock::now();
  return true;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutting_down_ = true;
  queue_.clear();
  dirty_.clear();
  queued_at_.clear();
  waiting_.clear();
  cv_.notify_all();
}

size_t WorkQueue::Len() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + waiting_.size();
}

QueueStats WorkQueue::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  QueueStats s;
  s.depth = static_cast<int64_t>(queue_.size());
  s.delayed = static_cast<int64_t>(waiting_.size());
  s.adds = adds_;
  s.retries = retries_;
  const Clock::time_point now = Clock::now();
  for (const auto& entry : processing_) {
    const double seconds = std::chrono::duration<double>(now - entry.second).count();
    s.unfinished_work_seconds += seconds;
    s.longest_running_seconds = std::max(s.longest_running_seconds, seconds);
  }
  return s;
}

}  // namespace petname::kube
