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

}  // namespace petname::dist
