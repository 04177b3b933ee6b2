// Our DistributedDataParallel: averages parameter gradients across ranks after backward.
//
// Parameters are grouped into buckets (AssignBuckets: reverse registration order, about
// bucket_bytes each). A hook on every parameter copies its gradient into its bucket's flat
// buffer as backward produces it; with overlap on, a bucket whose gradients are all in is
// all-reduced asynchronously while backward goes on (buckets start in index order on every
// rank, so the collectives match). FinishStep() starts what is left, waits for everything,
// divides by the world size and writes the averages into each parameter's .grad. With
// overlap off, one all-reduce of all gradients runs inside FinishStep().
//
// The stop vote (preemption) travels as one extra element of the last bucket, so all ranks
// learn at the same step whether any rank wants to stop, at no extra collective.
//
// Use per step: BeginStep(vote) -> loss.backward() -> FinishStep(&stop) -> optimizer.step().
// One backward per step (no gradient accumulation). Not thread-safe across steps.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "common/status.h"
#include "trainer/distributed/communicator.h"

namespace petname::dist {

struct GradSyncOptions {
  size_t bucket_bytes = 1u << 20;  // see --bucket-mb in trainer/cli/dist_flags.h
  bool overlap = true;
};

class GradSync {
 public:
  // `comm` must outlive this object. Registers the gradient hooks.
  GradSync(Communicator* comm, std::vector<torch::Tensor> params, const GradSyncOptions& options);
  ~GradSync();

  GradSync(const GradSync&) = delete;
  GradSync& operator=(const GradSync&) = delete;

  void BeginStep(bool stop_vote);

  // Completes the synchronisation; *stop is true when any rank voted to stop.
  Status FinishStep(bool* stop);

  size_t num_buckets() const { return buckets_.size(); }

  // Seconds FinishStep() spent blocked on communication in the last step.
  double last_wait_seconds() const { return last_wait_seconds_; }

 private:
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // of each parameter in `flat`
    torch::Tensor flat;
    size_t missing = 0;  // gradients not yet copied in this step
    bool started = false;
  };

  void OnGradient(size_t param, const torch::Tensor& grad);
  // Starts ready buckets in index order; the first error is kept in status_.
  void StartReadyBuckets(bool force);

  Communicator* comm_;
  std::vector<torch::Tensor> params_;
  GradSyncOptions options_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;  // parameter -> bucket
  std::vector<size_t> slot_of_;    // parameter -> index within its bucket
  std::vector<bool> seen_;         // parameter got its gradient this step
  std::vector<unsigned> hook_ids_;
  std::mutex mu_;
  size_t next_to_start_ = 0;
  Status status_;
  double last_wait_seconds_ = 0;
};

}  // namespace petname::dist
