// Gradient bucket assignment (pure). Backward produces gradients roughly in reverse
// registration order, so buckets are filled from the last parameter to the first: bucket 0
// holds the parameters whose gradients are ready first. A bucket is closed once it holds at
// least `cap_bytes` (a single parameter larger than the cap gets a bucket of its own).
// Every parameter index appears in exactly one bucket; empty input gives no buckets.
#pragma once

#include <cstddef>
#include <vector>

namespace petname::dist {

std::vector<std::vector<size_t>> AssignBuckets(const std::vector<size_t>& param_bytes,
                                               size_t cap_bytes);

}  // namespace petname::dist
