#include "trainer/distributed/grad_sync.h"

#include <chrono>
#include <limits>

#include "trainer/distributed/buckets.h"

namespace petname::dist {

GradSync::GradSync(Communicator* comm, std::vector<torch::Tensor> params,
                   const GradSyncOptions& options)
    : comm_(comm), params_(std::move(params)), options_(options) {
  std::vector<size_t> bytes;
  for (const auto& p : params_) bytes.push_back(p.numel() * p.element_size());
  size_t cap = options_.overlap ? options_.bucket_bytes : std::numeric_limits<size_t>::max();
  bucket_of_.resize(params_.size());
  slot_of_.resize(params_.size());
  seen_.resize(params_.size());
  const auto assignment = AssignBuckets(bytes, cap);
  for (const auto& indices : assignment) {
    Bucket bucket;
    int64_t size = 0;
    for (size_t i : indices) {
      bucket_of_[i] = buckets_.size();
      slot_of_[i] = bucket.params.size();
      bucket.params.push_back(i);
      bucket.offsets.push_back(size);
      size += params_[i].numel();
    }
    // The last bucket also carries the stop vote.
    bool last = buckets_.size() + 1 == assignment.size();
    bucket.flat = torch::zeros({size + (last ? 1 : 0)}, params_[indices[0]].options());
    buckets_.push_back(std::move(bucket));
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    hook_ids_.push_back(
        params_[i].register_hook([this, i](const torch::Tensor& grad) { OnGradient(i, grad); }));
  }
}

GradSync::~GradSync() {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].remove_hook(hook_ids_[i]);
}

void GradSync::BeginStep(bool stop_vote) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& bucket : buckets_) {
    bucket.missing = bucket.params.size();
    bucket.started = false;
  }
  std::fill(seen_.begin(), seen_.end(), false);
  if (!buckets_.empty()) buckets_.back().flat[-1].fill_(stop_vote ? 1.0 : 0.0);
  next_to_start_ = 0;
  status_ = Status::Ok();
}

void GradSync::OnGradient(size_t param, const torch::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mu_);
  Bucket& bucket = buckets_[bucket_of_[param]];
  if (seen_[param] || bucket.started) return;  // a second backward in one step: ignored
  seen_[param] = true;
  torch::NoGradGuard no_grad;
  bucket.flat.narrow(0, bucket.offsets[slot_of_[param]], grad.numel()).copy_(grad.reshape(-1));
  --bucket.missing;
  if (options_.overlap) StartReadyBuckets(false);
}

void GradSync::StartReadyBuckets(bool force) {
  while (next_to_start_ < buckets_.size()) {
    Bucket& bucket = buckets_[next_to_start_];
    if (bucket.missing > 0 && !force) return;
    if (bucket.missing > 0) {
      // Parameters that took no part in this backward contribute zeros.
      for (size_t slot = 0; slot < bucket.params.size(); ++slot) {
        if (seen_[bucket.params[slot]]) continue;
        bucket.flat.narrow(0, bucket.offsets[slot], params_[bucket.params[slot]].numel()).zero_();
      }
    }
    bucket.started = true;
    ++next_to_start_;
    Status st = comm_->StartAllreduceSum(bucket.flat);
    if (!st.ok() && status_.ok()) status_ = st;
  }
}

Status GradSync::FinishStep(bool* stop) {
  const auto start = std::chrono::steady_clock::now();
  Status st;
  {
    std::lock_guard<std::mutex> lock(mu_);
    torch::NoGradGuard no_grad;
    StartReadyBuckets(true);
    st = status_;
  }
  Status waited = comm_->WaitAll();
  if (st.ok()) st = waited;
  last_wait_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PETNAME_RETURN_IF_ERROR(st);

  torch::NoGradGuard no_grad;
  const double world = comm_->world_size();
  *stop = !buckets_.empty() && buckets_.back().flat[-1].item<double>() > 0;
  for (auto& bucket : buckets_) {
    if (world > 1) bucket.flat.div_(world);
    for (size_t slot = 0; slot < bucket.params.size(); ++slot) {
      torch::Tensor& p = params_[bucket.params[slot]];
      torch::Tensor averaged = bucket.flat.narrow(0, bucket.offsets[slot], p.numel()).view_as(p);
      if (p.grad().defined()) {
        p.mutable_grad().copy_(averaged);
      } else {
        p.mutable_grad() = averaged.clone();
      }
    }
  }
  return Status::Ok();
}

}  // namespace petname::dist
