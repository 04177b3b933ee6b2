// The prefix forest of a token batch built with tensor ops on the tokens' own device (no host
// loop, no host sync), padded to fixed per-level capacities so that every shape is known in
// advance: the whole training step can then be captured in one CUDA graph. The same code runs
// on the CPU, where the tests check it against the host forest (prefix_forest.h).
//
// Numbering: level t owns the padded ids [offset(t), offset(t) + capacity[t]); its distinct
// prefixes come first, in lexicographic order (the host forest's order), then unused padding
// slots (token 0, parent: the last slot of the level before, 0 at level 0), which no (row,
// step) refers to, so they add nothing to the loss or its gradients. So each level's parents
// never decrease (fixed_order.h relies on it). A level with more distinct prefixes than its
// capacity sets `overflow` and merges the excess into its last slot, which makes the results wrong:
// a caller that cannot rule that out ahead of time (ForestLevelSizes on the host) must check the
// flag.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace petname::model {

// The fixed shape of a padded forest and the constants that build it, on the device (made
// once, outside any CUDA graph capture: creating them copies from the host).
struct ForestLayout {
  std::vector<int64_t> capacity;  // per level (host): rows reserved for its nodes
  std::vector<int64_t> offset;    // per level (host): first padded id of the level
  torch::Tensor capacity_t, offset_t, shifts, levels;  // int64 [T] on the device
  torch::Tensor pad_parent;  // int64 [sum(capacity)]: a padding slot's parent (see above)
};

// capacity: T positive entries, T <= kMaxPackedSteps (prefix_forest.h).
ForestLayout MakeForestLayout(const std::vector<int64_t>& capacity, const torch::Device& device);

struct DeviceForest {
  std::vector<int64_t> capacity;  // the layout's
  std::vector<int64_t> offset;
  torch::Tensor node_of;   // int64 [B * T]: the padded node id of (row b, step t), b*T + t
  torch::Tensor parent;    // int64 [sum(capacity)]: the parent's index within its level
  torch::Tensor token;     // int64 [sum(capacity)]: the last token of the node's prefix
  torch::Tensor overflow;  // bool []: some level had more prefixes than its capacity

  int64_t padded_size() const { return offset.empty() ? 0 : offset.back() + capacity.back(); }
};

// tokens: int64 [B, T] on the layout's device with values below 2^kPrefixTokenBits; the
// layout has T levels, each of capacity at most B. Device ops only (capturable).
DeviceForest BuildDeviceForest(const torch::Tensor& tokens, const ForestLayout& layout);

// Exact level sizes of a token batch on any device (one copy to the host): capacities that can
// never overflow and pad nothing.
std::vector<int64_t> ExactCapacity(const torch::Tensor& tokens);

// Capacities for batches of `rows` rows whose level sizes were at most `largest`: 5 % headroom
// plus 64 rows, rounded up to a multiple of 16, never above `rows`.
std::vector<int64_t> CapacityWithHeadroom(const std::vector<int64_t>& largest, int64_t rows);

// Mean cross-entropy over every (row, step) when logits are computed once per forest node:
// node_logits fp32 [N, V], node_of int64 [B * T], targets int64 [B, T]. Equals cross_entropy
// of node_logits[node_of] against the targets without materialising the [B * T, V] rows.
torch::Tensor NodeCrossEntropy(const torch::Tensor& node_logits, const torch::Tensor& node_of,
                               const torch::Tensor& targets);

}  // namespace petname::model
