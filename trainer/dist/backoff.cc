#include "trainer/dist/backoff.h"

#include <algorithm>

namespace petname::dist {

Backoff::Backoff(Millis initial, Millis max, double factor)
    : current_(initial), max_(max), factor_(factor) {}

Backoff::Millis Backoff::Next(Millis left) {
  if (left <= Millis(0)) return Millis(0);
  Millis delay = std::min(current_, left);
  current_ = std::min(max_, Millis(static_cast<Millis::rep>(current_.count() * factor_)));
  return delay;
}

}  // namespace petname::dist
