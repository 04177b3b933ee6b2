#include "trainer/model/device_forest.h"

#include <algorithm>

#include "trainer/model/prefix_forest.h"

namespace petname::model {
namespace {

// Prefix keys carry their level above the packed tokens, so one sort groups them by level
// and orders each level lexicographically.
constexpr int64_t kLevelShift = kPrefixTokenBits * kMaxPackedSteps + 1;

torch::Tensor HostInt64(const std::vector<int64_t>& v, const torch::Device& device) {
  return torch::tensor(at::ArrayRef<int64_t>(v), torch::kInt64).to(device);
}

}  // namespace

ForestLayout MakeForestLayout(const std::vector<int64_t>& capacity, const torch::Device& device) {
  const auto steps = static_cast<int64_t>(capacity.size());
  TORCH_CHECK(steps >= 1 && steps <= kMaxPackedSteps, "MakeForestLayout: 1 to ", kMaxPackedSteps,
              " levels");
  ForestLayout layout;
  layout.capacity = capacity;
  std::vector<int64_t> shifts;
  std::vector<int64_t> levels;
  std::vector<int64_t> pad_parent;
  int64_t total = 0;
  for (int64_t t = 0; t < steps; ++t) {
    TORCH_CHECK(capacity[t] >= 1, "MakeForestLayout: capacities must be positive");
    layout.offset.push_back(total);
    total += capacity[t];
    shifts.push_back(kPrefixTokenBits * (steps - 1 - t));
    levels.push_back(t << kLevelShift);
    pad_parent.insert(pad_parent.end(), static_cast<size_t>(capacity[t]),
                      t == 0 ? 0 : capacity[t - 1] - 1);
  }
  layout.capacity_t = HostInt64(capacity, device);
  layout.offset_t = HostInt64(layout.offset, device);
  layout.shifts = HostInt64(shifts, device);
  layout.levels = HostInt64(levels, device);
  layout.pad_parent = HostInt64(pad_parent, device);
  return layout;
}

DeviceForest BuildDeviceForest(const torch::Tensor& tokens, const ForestLayout& layout) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kInt64,
              "BuildDeviceForest: tokens must be an int64 [B, T] tensor");
  const int64_t rows = tokens.size(0);
  const int64_t steps = tokens.size(1);
  TORCH_CHECK(static_cast<int64_t>(layout.capacity.size()) == steps,
              "BuildDeviceForest: the layout must have one level per step");
  for (int64_t c : layout.capacity) {
    TORCH_CHECK(c <= rows, "BuildDeviceForest: a level's capacity exceeds the batch");
  }
  DeviceForest f;
  f.capacity = layout.capacity;
  f.offset = layout.offset;
  const int64_t total = layout.offset.back() + layout.capacity.back();
  const auto i64 = torch::TensorOptions(torch::kInt64).device(tokens.device());
  const torch::Tensor& shifts = layout.shifts;
  const torch::Tensor& capacity_t = layout.capacity_t;
  const torch::Tensor& offset_t = layout.offset_t;

  // keys[b * T + t] = (level t, first t + 1 tokens of row b); each level has exactly B keys,
  // so after sorting level t occupies positions [t * B, (t + 1) * B).
  const torch::Tensor whole = tokens.bitwise_left_shift(shifts).sum(1, /*keepdim=*/true);
  const torch::Tensor keys = whole.bitwise_right_shift(shifts).bitwise_or(layout.levels).view({-1});
  const auto [sorted, order] = keys.sort();
  const torch::Tensor first = torch::cat(
      {torch::ones({1}, i64), sorted.slice(0, 1).ne(sorted.slice(0, 0, -1)).to(torch::kInt64)});
  const torch::Tensor distinct_rank = first.cumsum(0).sub_(1);
  const torch::Tensor level = sorted.bitwise_right_shift(kLevelShift);
  const torch::Tensor level_start = distinct_rank.index_select(0, torch::arange(steps, i64) * rows);
  const torch::Tensor local = distinct_rank - level_start.index_select(0, level);
  const torch::Tensor level_capacity = capacity_t.index_select(0, level);
  f.overflow = local.ge(level_capacity).any();
  const torch::Tensor padded =
      torch::minimum(local, level_capacity - 1).add_(offset_t.index_select(0, level));

  f.node_of = torch::empty_like(padded).scatter_(0, order, padded);
  const int64_t token_mask = (int64_t{1} << kPrefixTokenBits) - 1;
  f.token = torch::zeros({total}, i64).scatter_(0, padded, sorted.bitwise_and(token_mask));
  const torch::Tensor grid = f.node_of.view({rows, steps});
  const torch::Tensor child = grid.slice(1, 1).reshape({-1});
  const torch::Tensor parent_local =
      (grid.slice(1, 0, -1) - offset_t.slice(0, 0, -1).view({1, -1})).reshape({-1});
  f.parent = layout.pad_parent.clone().scatter_(0, child, parent_local);
  return f;
}

std::vector<int64_t> ExactCapacity(const torch::Tensor& tokens) {
  const torch::Tensor host = tokens.to(torch::kCPU).to(torch::kUInt8).contiguous();
  std::vector<int64_t> sizes =
      ForestLevelSizes(host.data_ptr<uint8_t>(), nullptr, tokens.size(0), tokens.size(1));
  for (int64_t& s : sizes) s = std::max<int64_t>(s, 1);
  return sizes;
}

std::vector<int64_t> CapacityWithHeadroom(const std::vector<int64_t>& largest, int64_t rows) {
  std::vector<int64_t> capacity;
  for (int64_t n : largest) {
    const int64_t padded = (n + n / 20 + 64 + 15) / 16 * 16;
    capacity.push_back(std::max<int64_t>(1, std::min(padded, rows)));
  }
  return capacity;
}

torch::Tensor NodeCrossEntropy(const torch::Tensor& node_logits, const torch::Tensor& node_of,
                               const torch::Tensor& targets) {
  const int64_t vocab = node_logits.size(1);
  const torch::Tensor log_probs = torch::log_softmax(node_logits, 1);
  return log_probs.view({-1}).take(node_of * vocab + targets.reshape({-1})).mean().neg();
}

}  // namespace petname::model
