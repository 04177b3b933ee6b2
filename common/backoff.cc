#include "common/backoff.h"

#include <algorithm>

namespace petname {

Backoff::Backoff(Millis base, Millis cap) : base_(base), cap_(cap) {}

Backoff::Backoff(Millis base, Millis cap, uint64_t seed) : base_(base), cap_(cap), rng_(seed) {}

Backoff::Millis Backoff::Next() {
  const int shift = std::min(attempt_, 30);
  ++attempt_;
  const int64_t ceiling = std::min<int64_t>(cap_.count(), base_.count() << shift);
  if (!rng_) return Millis(ceiling);
  std::uniform_int_distribution<int64_t> pick(ceiling / 2, ceiling);
  return Millis(pick(*rng_));
}

Backoff::Millis Backoff::Next(Millis left) {
  if (left <= Millis(0)) return Millis(0);
  return std::min(Next(), left);
}

}  // namespace petname
