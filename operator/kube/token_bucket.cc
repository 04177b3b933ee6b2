#include "operator/kube/token_bucket.h"

#include <algorithm>
#include <thread>

namespace petname::kube {

TokenBucket::TokenBucket(double qps, int burst)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_), last_(Clock::now()) {}

TokenBucket::Clock::duration TokenBucket::Reserve(Clock::time_point now) {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard<std::mutex> lock(mu_);
  if (now > last_) {
    double gained = std::chrono::duration<double>(now - last_).count() * qps_;
    tokens_ = std::min(burst_, tokens_ + gained);
    last_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::Wait() {
  Clock::duration wait = Reserve(Clock::now());
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace petname::kube
