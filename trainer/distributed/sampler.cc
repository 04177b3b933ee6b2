#include "trainer/distributed/sampler.h"

#include <algorithm>

namespace petname::dist {

int64_t ShardLength(int64_t count, int world, bool drop_last) {
  if (count <= 0) return 0;
  return drop_last ? count / world : (count + world - 1) / world;
}

std::vector<int64_t> ShardIndices(const std::vector<int64_t>& permutation, int64_t start, int world,
                                  int rank, bool drop_last) {
  const int64_t n = static_cast<int64_t>(permutation.size());
  const int64_t total = ShardLength(n, world, drop_last) * world;  // the epoch's sequence
  start = std::max<int64_t>(start, 0);
  // A start that is not a multiple of `world` (a resume on another world size) leaves a
  // remainder that is padded or dropped the same way, so shards stay equal.
  const int64_t length = ShardLength(total - start, world, drop_last);
  std::vector<int64_t> shard;
  for (int64_t k = 0; k < length; ++k) {
    shard.push_back(permutation[static_cast<size_t>((start + rank + k * world) % n)]);
  }
  return shard;
}

}  // namespace petname::dist
