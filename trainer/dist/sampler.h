// Sharded sampling for data-parallel training (pure, no LibTorch).
//
// Every epoch all ranks compute the same permutation of [0, n) from (seed, epoch). The
// epoch's sequence is the permutation from `start` on (the resume point, counted in
// global examples), made a multiple of the world size either by repeating it from its
// beginning (padding) or by dropping the tail (drop_last). Rank r takes positions
// r, r + world, r + 2·world, ... so every rank gets the same number of examples and runs
// the same number of steps, and after k steps of batch b the ranks together have consumed
// exactly the first k·b·world entries: the resume point does not depend on the world size.
#pragma once

#include <cstdint>
#include <vector>

namespace petname::dist {

// A permutation of [0, n), identical on every platform for the same (seed, epoch).
std::vector<int64_t> EpochPermutation(int64_t n, uint64_t seed, int64_t epoch);

// Examples per rank for `remaining` global examples on `world` ranks.
int64_t ShardLength(int64_t remaining, int world, bool drop_last);

// Rank `rank`'s examples of `permutation` from position `start` on.
std::vector<int64_t> ShardIndices(const std::vector<int64_t>& permutation, int64_t start, int world,
                                  int rank, bool drop_last);

class ShardedSampler {
 public:
  ShardedSampler(int64_t num_examples, int world, int rank, uint64_t seed, bool drop_last);

  // This rank's examples for `epoch`, skipping the first `start` global examples.
  std::vector<int64_t> EpochIndices(int64_t epoch, int64_t start = 0) const;

  int world() const { return world_; }

 private:
  int64_t num_examples_;
  int world_;
  int rank_;
  uint64_t seed_;
  bool drop_last_;
};

}  // namespace petname::dist
