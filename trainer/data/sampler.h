// The order in which an epoch visits the training examples.
//
// EpochPermutation is a pure function of (seed, epoch, count): resuming after epoch k
// replays exactly the orders an uninterrupted run would have used. It is a Fisher-Yates
// shuffle driven by SplitMix64, so it is the same on every platform and standard library.
#pragma once

#include <cstdint>
#include <vector>

namespace petname::data {

std::vector<int64_t> EpochPermutation(uint64_t seed, int64_t epoch, int64_t count);

}  // namespace petname::data
