// Gradient all-reduce for a model whose gradients live in one flat buffer (the device step's:
// every parameter's .grad is a view of it, train/flat_adam.h), started bucket by bucket while
// backward runs, like DistributedDataParallel with gradient_as_bucket_view.
//
// Buckets are contiguous ranges of the buffer (FlatBuckets, buckets.h): bucket 0 holds the
// last parameters, whose gradients backward finishes first, and the elements after them (the
// stop vote). A post hook on each parameter's gradient accumulator (which adds the gradient
// into the parameter's view of the buffer) counts the parameters whose gradient is complete;
// a complete bucket is all-reduced asynchronously once every earlier bucket has started, so
// buckets start in the same order on every rank while backward goes on with the next layers.
// FinishStep() starts what is left (parameters backward did not reach keep the zeros the
// caller put there) and waits for every bucket. With overlap off there is one bucket,
// started by FinishStep().
//
// Nothing here reads a device value: on CUDA (NCCL) the collectives run on NCCL's stream and
// the wait only orders the current stream after them, so BeginStep -> backward -> FinishStep
// can be captured in a CUDA graph whose replays repeat the collectives (the hooks run during
// the capture only).
//
// Use per step: zero the buffer's gradient part -> BeginStep() -> backward -> FinishStep().
// One backward per step. Not thread-safe across steps.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/status.h"
#include "trainer/distributed/buckets.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/grad_sync.h"

namespace petname::dist {

class FlatGradSync {
 public:
  // `params` in the buffer's order, each with its .grad a view of `flat` at its offset;
  // `flat` holds their elements and then any extra elements (all-reduced with bucket 0).
  // `comm` must outlive this object.
  FlatGradSync(Communicator* comm, const std::vector<torch::Tensor>& params, torch::Tensor flat,
               const GradSyncOptions& options);
  ~FlatGradSync();

  FlatGradSync(const FlatGradSync&) = delete;
  FlatGradSync& operator=(const FlatGradSync&) = delete;

  void BeginStep();
  Status FinishStep();

  size_t num_buckets() const { return buckets_.size(); }

  // Host seconds the last FinishStep() spent starting the remaining buckets and waiting.
  double last_wait_seconds() const { return last_wait_seconds_; }

 private:
  struct Bucket {
    FlatRange range;
    size_t params = 0;   // parameters in the bucket
    size_t missing = 0;  // of those, gradients not complete yet in this step
  };

  void OnGradientComplete(size_t param);
  void StartReadyBuckets(bool force);  // in index order; the first error is kept in status_

  Communicator* comm_;
  torch::Tensor flat_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;  // parameter -> bucket
  // The parameters' gradient accumulators, kept alive so that their hooks stay attached.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hook_keys_;
  std::mutex mu_;
  size_t next_to_start_ = 0;
  Status status_;
  double last_wait_seconds_ = 0;
};

}  // namespace petname::dist
