// One optimizer step of the training loop (train.h), behind one interface with two
// implementations:
// - HostStep (host_step.h), for the host prefix forest on the CPU: torch::optim::Adam, and
//   gradient buckets all-reduced while backward runs (GradSync). A step's global batch is
//   divided among the ranks so that rows sharing prefixes train together.
// - DeviceStep (device_step.h), for the device-generic implementations (device forest,
//   cuDNN) on any device: the whole step stays on the device, captured in CUDA graphs on CUDA;
//   each rank trains its own slice of its shard.
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/data/dataset.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/model/model.h"

namespace petname::train {

// What a step works on. Everything referenced must outlive the step.
struct StepContext {
  model::CharLstm model{nullptr};           // parameters on the training device
  torch::optim::Adam* optimizer = nullptr;  // the state checkpoints save and load
  dist::Communicator* comm = nullptr;
  const data::Examples* train = nullptr;  // host copy of the training examples
  torch::Tensor train_x, train_y;         // int64 [count, window] on the training device
  int64_t batch_size = 0;                 // rows per rank and step
  dist::RankConfig rank;
  // How long a step may wait for the device to finish an earlier step's collectives.
  std::chrono::milliseconds collective_timeout{std::chrono::seconds(300)};
  // This rank's shard of the run's first epoch from its start (host int64 example ids): what
  // a step that needs fixed shapes plans them from, the same whether or not a run resumed.
  torch::Tensor planning_shard;
};

struct StepResult {
  torch::Tensor loss;       // this rank's mean loss: 0-dim, on the device, not synced
  int64_t rows = 0;         // examples this rank trained on
  bool stop = false;        // some rank voted to stop; every rank gets the same answer
  double wait_seconds = 0;  // host time blocked on the gradient all-reduce
};

class TrainStep {
 public:
  virtual ~TrainStep() = default;

  // Every rank's shard of the epoch: int64 example ids on the host, all of one length.
  virtual void BeginEpoch(const std::vector<torch::Tensor>& shards) = 0;

  // Step b of the epoch at learning rate lr; `stop_vote`: this rank wants to stop.
  virtual Status Run(int64_t b, double lr, bool stop_vote, StepResult* out) = 0;

  // Brings the context's optimizer up to date (before a checkpoint is written).
  virtual void SyncOptimizer() = 0;

  // A line about how the steps ran, for the end of training (empty: nothing to say).
  virtual std::string Summary() const = 0;
};

}  // namespace petname::train
