// Backoff: capped exponential delays for retry loops: the trainer's rendezvous, the operator's
// API requests, watches and the work queue's failed keys. The n-th delay (n from 0) has the
// ceiling min(base * 2^n, cap). Seeded, the delay is uniform in [ceiling / 2, ceiling] (jitter,
// so that clients retrying the same server spread out); unseeded, it is the ceiling itself.
// Not thread-safe; one per retry loop (or per key).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

namespace petname {

class Backoff {
 public:
  using Millis = std::chrono::milliseconds;

  // Delays without jitter: base, 2 base, 4 base, ... up to cap.
  Backoff(Millis base, Millis cap);
  // Jittered delays drawn from a generator seeded with `seed`.
  Backoff(Millis base, Millis cap, uint64_t seed);

  // The delay before the next attempt. Advances the schedule.
  Millis Next();
  // For a loop with a deadline `left` away: Next(), but never past the deadline; zero, without
  // advancing, once nothing is left.
  Millis Next(Millis left);

  void Reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  Millis base_;
  Millis cap_;
  int attempt_ = 0;
  std::optional<std::mt19937_64> rng_;
};

}  // namespace petname
