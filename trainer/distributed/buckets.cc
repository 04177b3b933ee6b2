#include "trainer/distributed/buckets.h"

namespace petname::dist {

std::vector<std::vector<size_t>> AssignBuckets(const std::vector<size_t>& param_bytes,
                                               size_t cap_bytes) {
  std::vector<std::vector<size_t>> buckets;
  std::vector<size_t> current;
  size_t current_bytes = 0;
  for (size_t i = param_bytes.size(); i-- > 0;) {
    current.push_back(i);
    current_bytes += param_bytes[i];
    if (current_bytes >= cap_bytes) {
      buckets.push_back(std::move(current));
      current.clear();
      current_bytes = 0;
    }
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

std::vector<FlatRange> FlatBuckets(const std::vector<int64_t>& numels, int64_t element_bytes,
                                   size_t cap_bytes, int64_t extra) {
  std::vector<size_t> bytes;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const int64_t n : numels) {
    bytes.push_back(static_cast<size_t>(n * element_bytes));
    offsets.push_back(total);
    total += n;
  }
  std::vector<FlatRange> ranges;
  for (const std::vector<size_t>& bucket : AssignBuckets(bytes, cap_bytes)) {
    // AssignBuckets fills from the last parameter down: back() is the bucket's first one.
    ranges.push_back({offsets[bucket.back()], offsets[bucket.front()] + numels[bucket.front()]});
  }
  if (!ranges.empty()) ranges.front().end += extra;
  return ranges;
}

}  // namespace petname::dist
