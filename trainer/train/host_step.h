// The training step of the host prefix forest (step.h): forward and backward on the CPU,
// gradients averaged by GradSync during backward, then torch::optim::Adam.
//
// Step b's global batch is the union of the ranks' b-th slices of their shards; with several
// ranks dist::RankRowsOfBatch divides it so that rows sharing prefixes train together and the
// work is even, each rank's loss weighted by its share of the rows (dist::RankLossScale).
#pragma once

#include <memory>
#include <vector>

#include "trainer/distributed/grad_sync.h"
#include "trainer/train/step.h"

namespace petname::train {

class HostStep : public TrainStep {
 public:
  HostStep(const StepContext& context, const dist::GradSyncOptions& grad_sync);

  void BeginEpoch(const std::vector<torch::Tensor>& shards) override;
  Status Run(int64_t b, double lr, bool stop_vote, StepResult* out) override;
  void SyncOptimizer() override {}
  std::string Summary() const override { return ""; }

 private:
  // This rank's example ids of step b; *global_rows: the step's rows over all ranks.
  torch::Tensor RankBatch(int64_t b, int64_t* global_rows) const;

  StepContext c_;
  dist::GradSync grad_sync_;
  std::vector<torch::Tensor> shards_;
};

}  // namespace petname::train
