// Backoff: capped exponential delays with full jitter, for retrying 429/5xx/connection errors and
// for re-queueing keys whose reconcile failed. Not thread-safe; one per retry loop (or per key).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace petname::kube {

class Backoff {
 public:
  // The n-th delay (n from 0) is uniform in [base * 2^n / 2, base * 2^n], capped at `cap`.
  Backoff(std::chrono::milliseconds base, std::chrono::milliseconds cap, uint64_t seed);

  std::chrono::milliseconds Next();
  void Reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  std::chrono::milliseconds base_;
  std::chrono::milliseconds cap_;
  int attempt_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace petname::kube
