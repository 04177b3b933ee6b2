// Gradient bucket assignment (pure). Backward produces gradients roughly in reverse
// registration order, so buckets are filled from the last parameter to the first: bucket 0
// holds the parameters whose gradients are ready first. A bucket is closed once it holds at
// least `cap_bytes` (a single parameter larger than the cap gets a bucket of its own).
// Every parameter index appears in exactly one bucket; empty input gives no buckets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace petname::dist {

std::vector<std::vector<size_t>> AssignBuckets(const std::vector<size_t>& param_bytes,
                                               size_t cap_bytes);

// A bucket of a flat gradient buffer: elements [begin, end).
struct FlatRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// The buckets of a flat buffer holding parameters of `numels` elements one after the other
// (element_bytes each), then `extra` more elements: AssignBuckets' grouping as contiguous
// ranges, bucket 0 at the buffer's end. Bucket 0 also covers the `extra` elements; bucket k of
// parameters i..j (i <= j) is [offset(i), offset(j) + numels[j]). Empty input gives no buckets.
std::vector<FlatRange> FlatBuckets(const std::vector<int64_t>& numels, int64_t element_bytes,
                                   size_t cap_bytes, int64_t extra);

}  // namespace petname::dist
