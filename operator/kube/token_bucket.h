// TokenBucket: the client-side request rate limit (QPS with a burst), as client-go's flowcontrol.
// A bucket holds at most `burst` tokens and gains `qps` tokens per second; each request takes one.
// qps <= 0 lifts the limit. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>

namespace petname::kube {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(double qps, int burst);

  // Takes a token and returns how long the caller must wait before using it (zero when one is
  // available at `now`). Reservations queue up: the n-th caller waits for the n-th token.
  Clock::duration Reserve(Clock::time_point now);

  // Reserve(Clock::now()) and sleep for the returned duration.
  void Wait();

 private:
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace petname::kube
