#include "trainer/train/device_examples.h"

#include <utility>
#include <vector>

#include "trainer/data/sampler.h"
#include "trainer/distributed/sampler.h"

namespace petname::train {
namespace {

// [count, window] int64 tensor from one-byte vocabulary indices.
torch::Tensor ToTensor(const std::vector<uint8_t>& flat, size_t count, int window) {
  return torch::from_blob(const_cast<uint8_t*>(flat.data()), {static_cast<int64_t>(count), window},
                          torch::kUInt8)
      .to(torch::kInt64);
}

// Rows [begin, end) of `count` that rank `rank` of `world` validates on.
std::pair<int64_t, int64_t> ValidationShard(int64_t count, const dist::RankConfig& r) {
  return {count * r.rank / r.world_size, count * (r.rank + 1) / r.world_size};
}

}  // namespace

DeviceExamples ExamplesOn(const torch::Device& device, const data::Dataset& data,
                          const dist::RankConfig& rank) {
  const int window = data.options.window;
  DeviceExamples e;
  e.train_x = ToTensor(data.train.inputs, data.train.count, window).to(device);
  e.train_y = ToTensor(data.train.targets, data.train.count, window).to(device);
  const auto [val_begin, val_end] =
      ValidationShard(static_cast<int64_t>(data.validation.count), rank);
  e.val_x = ToTensor(data.validation.inputs, data.validation.count, window)
                .slice(0, val_begin, val_end)
                .to(device);
  e.val_y = ToTensor(data.validation.targets, data.validation.count, window)
                .slice(0, val_begin, val_end)
                .to(device);
  return e;
}

torch::Tensor ShardTensor(const TrainOptions& o, int64_t epoch, int64_t count, int64_t start,
                          int rank) {
  std::vector<int64_t> shard = dist::ShardIndices(data::EpochPermutation(o.seed, epoch, count),
                                                  start, o.rank.world_size, rank, o.drop_last);
  return torch::from_blob(shard.data(), {static_cast<int64_t>(shard.size())}, torch::kInt64)
      .clone();
}

}  // namespace petname::train
