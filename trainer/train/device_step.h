// The training step of the device-generic model implementations (step.h): device forest or
// cuDNN, on any device. Everything a step needs lives on the device: the examples, the epoch's
// shard of example ids, the flat gradient buffer and the Adam state (flat_adam.h). A step is
//   copy this step's ids into a fixed buffer -> forward/backward (gather, device forest,
//   LSTM, loss, gradients flattened into the buffer) -> all-reduce of the buffer -> Adam,
// and on CUDA the forward/backward (one graph per batch size) and the update are CUDA graphs
// (graphed_call.h), so a step costs a few launches and no host sync.
//
// Shapes must be fixed for a graph, so the device forest is padded to per-level capacities
// chosen from the level sizes of the first epoch's full batches (CapacityWithHeadroom; a
// smaller batch gets the same capacities capped at its rows), always the same for a run and
// its resumptions, so that resuming computes the same shapes as not stopping. The host
// counts each batch's level sizes before launching it (ForestLevelSizes, microseconds while
// the device works on the previous step); a batch that would not fit runs eagerly with exact
// sizes instead, so results never depend on the padding.
//
// On CUDA the forward/backward graphs of the run's batch sizes are captured before training
// (on the planning shard's first rows; start-up, reported by Summary()), so the first epoch
// already replays them.
//
// With several ranks each trains its own slice of its shard (equal rows, so the mean of the
// ranks' gradients is the gradient of the global batch). Every parameter's .grad is a view of
// the flat gradient buffer, so backward accumulates straight into it, and its buckets are
// all-reduced as backward completes them (dist::FlatGradSync; --bucket-mb, --no-overlap), the
// collectives inside the step's CUDA graph on CUDA. The stop vote travels as one more element
// of the buffer (in the first bucket) and is read back one step late: its copy to pinned host
// memory is queued behind the step, and the next step, once it has queued its own work, reads
// it, so the host never waits for the device within a step and every rank learns of a vote at
// the same step. Waiting for that copy longer than the collective timeout (a peer died or an
// all-reduce stalls, which on the device shows as a step that never ends) fails the step with
// kUnavailable (retryable) instead of hanging.
#pragma once

#include <c10/core/Event.h>

#include <map>
#include <memory>
#include <vector>

#include "trainer/distributed/flat_grad_sync.h"
#include "trainer/distributed/grad_sync.h"

#include "trainer/model/device_forest.h"
#include "trainer/train/flat_adam.h"
#include "trainer/train/graphed_call.h"
#include "trainer/train/step.h"

namespace petname::train {

class DeviceStep : public TrainStep {
 public:
  // The model's implementation must be kDeviceForest or kCudnn. Takes over the optimizer's
  // state (a resumed run's) and re-points the parameters into FlatAdam's buffer and their
  // gradients into the flat gradient buffer.
  DeviceStep(const StepContext& context, const dist::GradSyncOptions& grad_sync);
  ~DeviceStep() override;

  void BeginEpoch(const std::vector<torch::Tensor>& shards) override;
  Status Run(int64_t b, double lr, bool stop_vote, StepResult* out) override;
  void SyncOptimizer() override;
  std::string Summary() const override;

 private:
  // Everything a batch size needs: its id buffer, forest capacities and graphed call.
  struct Shape {
    torch::Tensor ids;
    model::ForestLayout layout;  // the device forest's (capacity empty for cuDNN)
    torch::Tensor loss;          // the last forward's loss, written by `call`
    std::unique_ptr<GraphedCall> call;
  };

  // Forward and backward over the ids in `ids`, with the gradient's all-reduce: returns the
  // loss, writes the flat gradient (summed over the ranks), sets sync_status_.
  torch::Tensor ForwardBackward(const torch::Tensor& ids, const model::ForestLayout& layout);
  Shape& ShapeFor(int64_t rows);
  void WarmUp();
  // *stop: the previous step's all-reduced vote (false at the first step); queues this one's.
  Status ReadVote(bool* stop);
  std::vector<int64_t> LevelSizes(const torch::Tensor& shard, int64_t begin, int64_t rows) const;

  StepContext c_;
  bool forest_;
  std::vector<torch::Tensor> params_;
  FlatAdam adam_;
  torch::Tensor grad_;       // [numel + 1]: the flat gradient, then the stop vote
  torch::Tensor grad_body_;  // its first numel elements
  std::unique_ptr<GraphedCall> update_;
  std::unique_ptr<dist::FlatGradSync> sync_;
  Status sync_status_;            // of the last eager or captured all-reduce
  double sync_wait_seconds_ = 0;  // host time this step spent waiting for it (0 on replays)
  torch::Tensor vote_host_;       // [1], pinned on CUDA: the last queued copy of the vote
  std::unique_ptr<c10::Event> vote_ready_;  // CUDA: recorded after that copy
  bool vote_pending_ = false;
  std::map<int64_t, Shape> shapes_;
  std::vector<int64_t> full_capacity_;  // from the planning shard's full batches
  torch::Tensor shard_host_, shard_;
  int64_t graphed_steps_ = 0, eager_steps_ = 0;
  double warm_up_seconds_ = 0;
};

}  // namespace petname::train
