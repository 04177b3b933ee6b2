#include "trainer/data/sampler.h"

#include <cstddef>
#include <numeric>
#include <utility>

namespace petname::data {
namespace {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [0, bound) without modulo bias (rejection sampling).
uint64_t Below(uint64_t bound, uint64_t* state) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x = SplitMix64(state);
  while (x >= limit) x = SplitMix64(state);
  return x % bound;
}

}  // namespace

std::vector<int64_t> EpochPermutation(uint64_t seed, int64_t epoch, int64_t count) {
  std::vector<int64_t> perm(static_cast<size_t>(count));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  uint64_t state = seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(epoch + 1));
  for (int64_t i = count - 1; i > 0; --i) {
    auto j = static_cast<int64_t>(Below(static_cast<uint64_t>(i) + 1, &state));
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
  }
  return perm;
}

}  // namespace petname::data
