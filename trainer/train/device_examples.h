// The dataset's examples as the training loop (train.h) holds them on the training device: every
// training row, which a step index_selects through its rank's shard of the epoch, and this
// rank's contiguous part of the validation rows (the ranks' validation sums are added).
// Shards are host int64 example ids (distributed/sampler.h), the same on every rank for a seed
// and epoch.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "trainer/data/dataset.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/train/train.h"

namespace petname::train {

struct DeviceExamples {
  torch::Tensor train_x, train_y;  // every training row: int64 [count, window]
  torch::Tensor val_x, val_y;      // this rank's validation rows
};

// The examples of `data` on `device`, with rank `rank`'s validation rows.
DeviceExamples ExamplesOn(const torch::Device& device, const data::Dataset& data,
                          const dist::RankConfig& rank);

// Rank `rank`'s examples of the epoch, from global position `start` on (distributed/sampler.h),
// of `count` training rows ordered by o.seed.
torch::Tensor ShardTensor(const TrainOptions& o, int64_t epoch, int64_t count, int64_t start,
                          int rank);

}  // namespace petname::train
