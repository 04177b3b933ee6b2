#include "trainer/distributed/flat_grad_sync.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>

#include <chrono>
#include <limits>

namespace petname::dist {

FlatGradSync::FlatGradSync(Communicator* comm, const std::vector<torch::Tensor>& params,
                           torch::Tensor flat, const GradSyncOptions& options)
    : comm_(comm), flat_(std::move(flat)) {
  std::vector<int64_t> numels;
  int64_t total = 0;
  for (const torch::Tensor& p : params) {
    numels.push_back(p.numel());
    total += p.numel();
  }
  const size_t cap = options.overlap ? options.bucket_bytes : std::numeric_limits<size_t>::max();
  for (const FlatRange& range :
       FlatBuckets(numels, flat_.element_size(), cap, flat_.numel() - total)) {
    buckets_.push_back({range, 0, 0});
  }
  int64_t offset = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    size_t b = 0;
    while (offset < buckets_[b].range.begin || offset >= buckets_[b].range.end) ++b;
    bucket_of_.push_back(b);
    ++buckets_[b].params;
    offset += numels[i];
    accumulators_.push_back(torch::autograd::impl::grad_accumulator(params[i]));
    hook_keys_.push_back(accumulators_.back()->add_post_hook(
        std::make_unique<torch::autograd::utils::LambdaPostHook>(
            [this, i](const torch::autograd::variable_list& outputs,
                      const torch::autograd::variable_list&) {
              OnGradientComplete(i);
              return outputs;
            })));
  }
}

FlatGradSync::~FlatGradSync() {
  for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hook_keys_[i]);
}

void FlatGradSync::BeginStep() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Bucket& bucket : buckets_) bucket.missing = bucket.params;
  next_to_start_ = 0;
  status_ = Status::Ok();
}

void FlatGradSync::OnGradientComplete(size_t param) {
  std::lock_guard<std::mutex> lock(mu_);
  Bucket& bucket = buckets_[bucket_of_[param]];
  if (bucket.missing == 0) return;  // a second backward in one step: ignored
  --bucket.missing;
  if (bucket.missing == 0) StartReadyBuckets(false);
}

void FlatGradSync::StartReadyBuckets(bool force) {
  while (next_to_start_ < buckets_.size()) {
    const Bucket& bucket = buckets_[next_to_start_];
    if (bucket.missing > 0 && !force) return;
    ++next_to_start_;
    const Status st = comm_->StartAllreduceSum(
        flat_.narrow(0, bucket.range.begin, bucket.range.end - bucket.range.begin));
    if (!st.ok() && status_.ok()) status_ = st;
  }
}

Status FlatGradSync::FinishStep() {
  const auto start = std::chrono::steady_clock::now();
  Status st;
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartReadyBuckets(true);
    st = status_;
  }
  const Status waited = comm_->WaitAll();
  if (st.ok()) st = waited;
  last_wait_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return st;
}

}  // namespace petname::dist
