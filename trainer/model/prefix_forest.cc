#include "trainer/model/prefix_forest.h"

#include <algorithm>
#include <numeric>

namespace petname::model {

PrefixForest BuildPrefixForest(const int64_t* tokens, int64_t rows, int64_t steps) {
  PrefixForest f;
  f.rows = rows;
  f.steps = steps;
  f.level_offsets.assign(static_cast<size_t>(steps) + 1, 0);
  if (rows <= 0 || steps <= 0) {
    f.child_begin.assign(1, 0);
    return f;
  }
  f.node.resize(static_cast<size_t>(rows * steps));

  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const int64_t* ra = tokens + a * steps;
    const int64_t* rb = tokens + b * steps;
    for (int64_t t = 0; t < steps; ++t) {
      if (ra[t] != rb[t]) return ra[t] < rb[t];
    }
    return a < b;
  });

  // level_node[k]: the node of sorted row k at the level being built (on entry: the level
  // before it). A row starts a new node when its parent or its token differs from the
  // previous sorted row's.
  std::vector<int64_t> level_node(static_cast<size_t>(rows), -1);
  for (int64_t t = 0; t < steps; ++t) {
    f.level_offsets[t] = f.size();
    int64_t prev_parent = -2;
    int64_t prev_token = 0;
    for (int64_t k = 0; k < rows; ++k) {
      const int64_t r = order[k];
      const int64_t parent = level_node[k];
      const int64_t token = tokens[r * steps + t];
      if (k == 0 || parent != prev_parent || token != prev_token) {
        f.token.push_back(token);
        f.parent.push_back(parent);
      }
      prev_parent = parent;
      prev_token = token;
      level_node[k] = f.size() - 1;
      f.node[r * steps + t] = f.size() - 1;
    }
  }
  f.level_offsets[steps] = f.size();

  // Parents are non-decreasing over ids >= level_offsets[1], so each node's first child is
  // where its id first appears as a parent; leaves start (and end) at size().
  const int64_t n = f.size();
  f.child_begin.assign(static_cast<size_t>(n) + 1, n);
  for (int64_t c = n - 1; c >= f.level_offsets[1]; --c) f.child_begin[f.parent[c]] = c;
  return f;
}

std::vector<int64_t> ForestLevelSizes(const uint8_t* tokens, const int64_t* index, int64_t count,
                                      int64_t steps) {
  std::vector<int64_t> sizes(static_cast<size_t>(std::max<int64_t>(steps, 0)), 0);
  if (count <= 0 || steps <= 0) return sizes;
  std::vector<uint64_t> keys(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    const uint8_t* row = tokens + (index != nullptr ? index[k] : k) * steps;
    uint64_t key = 0;
    for (int64_t t = 0; t < steps; ++t) key = key << kPrefixTokenBits | row[t];
    keys[static_cast<size_t>(k)] = key;
  }
  // LSD radix sort, 11 bits a pass: sorted whole rows list every prefix in sorted order too.
  constexpr int kDigitBits = 11;
  const int64_t bits = steps * kPrefixTokenBits;
  std::vector<uint64_t> buffer(keys.size());
  for (int64_t shift = 0; shift < bits; shift += kDigitBits) {
    std::vector<size_t> start((size_t{1} << kDigitBits) + 1, 0);
    const uint64_t mask = (uint64_t{1} << kDigitBits) - 1;
    for (uint64_t key : keys) ++start[((key >> shift) & mask) + 1];
    for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (uint64_t key : keys) buffer[start[(key >> shift) & mask]++] = key;
    keys.swap(buffer);
  }
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t shift = (steps - 1 - t) * kPrefixTokenBits;
    int64_t distinct = 1;
    for (size_t k = 1; k < keys.size(); ++k) {
      distinct += (keys[k] >> shift) != (keys[k - 1] >> shift);
    }
    sizes[static_cast<size_t>(t)] = distinct;
  }
  return sizes;
}

}  // namespace petname::model
