// Retry schedule for rendezvous (pure): exponential delays from `initial`, multiplied by
// `factor` after each attempt and capped at `max`, never past the overall deadline.
#pragma once

#include <chrono>

namespace petname::dist {

class Backoff {
 public:
  using Millis = std::chrono::milliseconds;

  Backoff(Millis initial, Millis max, double factor);

  // The delay before the next attempt given the time still left before the deadline:
  // min(current delay, left), or zero when nothing is left. Advances the schedule.
  Millis Next(Millis left);

 private:
  Millis current_;
  Millis max_;
  double factor_;
};

}  // namespace petname::dist
