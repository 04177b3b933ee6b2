// Sharded sampling for data-parallel training (pure, no LibTorch).
//
// Every epoch all ranks compute the same permutation of [0, n) from (seed, epoch)
// (data::EpochPermutation). The epoch's sequence is that permutation made a multiple of the
// world size, either by repeating it from its beginning (padding) or by dropping its tail
// (drop_last). Rank r takes the sequence's positions r, r + world, r + 2·world, ... from
// position `start` on (the resume point, in global examples), so every rank gets the same
// number of examples and runs the same number of steps, and after k steps of batch b the
// ranks together have consumed exactly positions [start, start + k·b·world): a resumed run
// sees exactly what the interrupted one would have, and the resume point does not depend
// on the world size.
#pragma once

#include <cstdint>
#include <vector>

namespace petname::dist {

// Examples per rank in a whole epoch of `count` examples on `world` ranks.
int64_t ShardLength(int64_t count, int world, bool drop_last);

// Rank `rank`'s examples of `permutation` from position `start` on.
std::vector<int64_t> ShardIndices(const std::vector<int64_t>& permutation, int64_t start, int world,
                                  int rank, bool drop_last);

}  // namespace petname::dist
