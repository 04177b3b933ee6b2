#include "trainer/dist/sampler.h"

#include <algorithm>

namespace petname::dist {
namespace {

// SplitMix64: a fixed, portable generator (std::shuffle's algorithm is not specified).
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<int64_t> EpochPermutation(int64_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> perm(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  uint64_t state = seed ^ (0x632be59bd9b4e019ULL * static_cast<uint64_t>(epoch + 1));
  for (size_t i = perm.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(SplitMix64(&state) % i);
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

int64_t ShardLength(int64_t remaining, int world, bool drop_last) {
  if (remaining <= 0) return 0;
  return drop_last ? remaining / world : (remaining + world - 1) / world;
}

std::vector<int64_t> ShardIndices(const std::vector<int64_t>& permutation, int64_t start, int world,
                                  int rank, bool drop_last) {
  int64_t n = static_cast<int64_t>(permutation.size());
  start = std::clamp<int64_t>(start, 0, n);
  int64_t remaining = n - start;
  int64_t length = ShardLength(remaining, world, drop_last);
  std::vector<int64_t> shard;
  shard.reserve(static_cast<size_t>(length));
  for (int64_t k = 0; k < length; ++k) {
    int64_t pos = rank + k * world;  // position in the (padded) remaining sequence
    shard.push_back(permutation[static_cast<size_t>(start + pos % remaining)]);
  }
  return shard;
}

ShardedSampler::ShardedSampler(int64_t num_examples, int world, int rank, uint64_t seed,
                               bool drop_last)
    : num_examples_(num_examples), world_(world), rank_(rank), seed_(seed), drop_last_(drop_last) {}

std::vector<int64_t> ShardedSampler::EpochIndices(int64_t epoch, int64_t start) const {
  return ShardIndices(EpochPermutation(num_examples_, seed_, epoch), start, world_, rank_,
                      drop_last_);
}

}  // namespace petname::dist
