#include "operator/kube/backoff.h"

#include <algorithm>

namespace petname::kube {

Backoff::Backoff(std::chrono::milliseconds base, std::chrono::milliseconds cap, uint64_t seed)
    : base_(base), cap_(cap), rng_(seed) {}

std::chrono::milliseconds Backoff::Next() {
  int shift = std::min(attempt_, 30);
  ++attempt_;
  int64_t ceiling = std::min<int64_t>(cap_.count(), base_.count() << shift);
  std::uniform_int_distribution<int64_t> pick(ceiling / 2, ceiling);
  return std::chrono::milliseconds(pick(rng_));
}

}  // namespace petname::kube
