#include "trainer/dist/sampler.h"

#include <algorithm>

namespace petname::dist {

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

}  // namespace petname::dist
