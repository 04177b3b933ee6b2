#include "trainer/train/device_step.h"

#include <c10/core/impl/VirtualGuardImpl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "trainer/data/vocabulary.h"
#include "trainer/model/device_forest.h"
#include "trainer/model/fixed_order.h"
#include "trainer/model/prefix_forest.h"

namespace petname::train {

DeviceStep::DeviceStep(const StepContext& context, const dist::GradSyncOptions& grad_sync)
    : c_(context),
      forest_(context.model->options().impl == model::LstmImpl::kDeviceForest),
      params_(context.model->parameters()),
      adam_(params_, *context.optimizer) {
  TORCH_CHECK(forest_ || c_.model->options().impl == model::LstmImpl::kCudnn,
              "DeviceStep: the model must use the device forest or cuDNN");
  grad_ = torch::zeros({adam_.numel() + 1}, params_.front().options());
  adam_.BindGradients(grad_);
  sync_ = std::make_unique<dist::FlatGradSync>(c_.comm, params_, grad_, grad_sync);
  vote_host_ =
      torch::zeros({1}, torch::TensorOptions(grad_.dtype()).pinned_memory(grad_.is_cuda()));
  if (grad_.is_cuda()) vote_ready_ = std::make_unique<c10::Event>(grad_.device().type());
  if (forest_) {
    const torch::Tensor plan = c_.planning_shard.contiguous();
    std::vector<int64_t> largest(static_cast<size_t>(c_.train_x.size(1)), 1);
    const int64_t full_batches = std::max<int64_t>(1, plan.size(0) / c_.batch_size);
    const int64_t rows = std::min(c_.batch_size, plan.size(0));
    for (int64_t b = 0; b < full_batches && rows > 0; ++b) {
      const std::vector<int64_t> sizes = LevelSizes(plan, b * c_.batch_size, rows);
      for (size_t t = 0; t < largest.size(); ++t) largest[t] = std::max(largest[t], sizes[t]);
    }
    full_capacity_ = model::CapacityWithHeadroom(largest, c_.batch_size);
  }
  grad_body_ = grad_.narrow(0, 0, adam_.numel());
  const double world = c_.rank.world_size;
  update_ = std::make_unique<GraphedCall>(
      grad_.device(), [this, world] { adam_.Update(world > 1 ? grad_body_ / world : grad_body_); });
  if (grad_.is_cuda()) WarmUp();
}

void DeviceStep::WarmUp() {
  const auto start = std::chrono::steady_clock::now();
  const torch::Tensor& plan = c_.planning_shard;
  const int64_t n = plan.size(0);
  for (const int64_t rows : {std::min(c_.batch_size, n), n % c_.batch_size}) {
    if (rows == 0) continue;
    Shape& shape = ShapeFor(rows);
    if (shape.call->captured()) continue;
    shape.ids.copy_(plan.narrow(0, 0, rows));
    shape.call->Run();  // eagerly: CUDA libraries and kernels load
    shape.call->Run();  // captured, then replayed
  }
  warm_up_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

DeviceStep::~DeviceStep() = default;

std::vector<int64_t> DeviceStep::LevelSizes(const torch::Tensor& shard, int64_t begin,
                                            int64_t rows) const {
  return model::ForestLevelSizes(c_.train->inputs.data(), shard.data_ptr<int64_t>() + begin, rows,
                                 c_.train_x.size(1));
}

void DeviceStep::BeginEpoch(const std::vector<torch::Tensor>& shards) {
  shard_host_ = shards.at(static_cast<size_t>(c_.rank.rank)).contiguous();
  shard_ = shard_host_.to(c_.train_x.device());
}

torch::Tensor DeviceStep::ForwardBackward(const torch::Tensor& ids,
                                          const model::ForestLayout& layout) {
  grad_body_.zero_();
  sync_->BeginStep();
  const torch::Tensor x = c_.train_x.index_select(0, ids);
  const torch::Tensor y = c_.train_y.index_select(0, ids);
  torch::Tensor loss;
  if (forest_) {
    const model::DeviceForest forest = model::BuildDeviceForest(x, layout);
    const torch::Tensor logits = c_.model->forward_forest(forest);
    loss = c_.model->options().fixed_order ? model::CountCrossEntropy(logits, forest.node_of, y)
                                           : model::NodeCrossEntropy(logits, forest.node_of, y);
  } else {
    loss = torch::nn::functional::cross_entropy(
        c_.model->forward_dense(x).reshape({-1, data::kVocabularySize}), y.reshape({-1}));
  }
  loss.backward();
  sync_status_ = sync_->FinishStep();
  sync_wait_seconds_ += sync_->last_wait_seconds();
  return loss.detach();
}

DeviceStep::Shape& DeviceStep::ShapeFor(int64_t rows) {
  auto found = shapes_.find(rows);
  if (found != shapes_.end()) return found->second;
  Shape& shape = shapes_[rows];
  const torch::Device device = c_.train_x.device();
  shape.ids = torch::zeros({rows}, torch::TensorOptions(torch::kInt64).device(device));
  if (forest_) {
    std::vector<int64_t> capacity = full_capacity_;
    for (int64_t& c : capacity) c = std::min(c, rows);
    shape.layout = model::MakeForestLayout(capacity, device);
  }
  shape.call = std::make_unique<GraphedCall>(
      device, [this, &shape] { shape.loss = ForwardBackward(shape.ids, shape.layout); });
  return shape;
}

Status DeviceStep::Run(int64_t b, double lr, bool stop_vote, StepResult* out) {
  const int64_t begin = b * c_.batch_size;
  const int64_t rows = std::min(c_.batch_size, shard_host_.size(0) - begin);
  std::vector<int64_t> sizes;
  if (forest_) sizes = LevelSizes(shard_host_, begin, rows);
  Shape& shape = ShapeFor(rows);
  bool fits = true;
  for (size_t t = 0; t < sizes.size(); ++t) fits = fits && sizes[t] <= shape.layout.capacity[t];
  shape.ids.copy_(shard_.narrow(0, begin, rows));
  const bool several = c_.rank.world_size > 1;
  if (several) grad_[-1].fill_(stop_vote ? 1.0 : 0.0);
  sync_wait_seconds_ = 0;
  if (fits) {
    shape.call->Run();
    out->loss = shape.loss;
    ++graphed_steps_;
  } else {
    out->loss = ForwardBackward(shape.ids, model::MakeForestLayout(sizes, shard_.device()));
    ++eager_steps_;
  }
  PETNAME_RETURN_IF_ERROR(sync_status_);
  adam_.SetLearningRate(lr);
  update_->Run();
  out->rows = rows;
  out->wait_seconds = sync_wait_seconds_;
  out->stop = stop_vote;
  if (several) return ReadVote(&out->stop);
  return Status::Ok();
}

Status DeviceStep::ReadVote(bool* stop) {
  // The previous step's vote: its copy was queued behind that step's all-reduce, which the
  // device has finished or is about to finish while this step's work is queued behind it.
  if (vote_pending_ && vote_ready_) {
    const auto deadline = std::chrono::steady_clock::now() + c_.collective_timeout;
    while (!vote_ready_->query()) {
      if (std::chrono::steady_clock::now() > deadline) {
        c_.comm->MarkFailed();
        return Status::Unavailable(
            "rank " + std::to_string(c_.rank.rank) +
            ": collective failed (all-reduce): the device did not finish a step within the " +
            "collective timeout (--collective-timeout " +
            std::to_string(
                std::chrono::duration_cast<std::chrono::seconds>(c_.collective_timeout).count()) +
            " s): a peer died or stalls");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  *stop = vote_pending_ && vote_host_.item<double>() > 0;
  vote_host_.copy_(grad_.narrow(0, adam_.numel(), 1), /*non_blocking=*/true);
  if (vote_ready_) {
    c10::impl::VirtualGuardImpl guard(grad_.device().type());
    vote_ready_->record(guard.getStream(grad_.device()));
  }
  vote_pending_ = true;
  return Status::Ok();
}

void DeviceStep::SyncOptimizer() { adam_.ExportTo(*c_.optimizer); }

std::string DeviceStep::Summary() const {
  if (!grad_.is_cuda() && eager_steps_ == 0) return "";
  std::string line = "device step: " + std::to_string(graphed_steps_) + " steps " +
                     (grad_.is_cuda() ? "in CUDA graphs" : "with fixed shapes");
  if (grad_.is_cuda()) {
    line +=
        " (captured before training in " + std::to_string(warm_up_seconds_).substr(0, 4) + " s)";
  }
  if (forest_) {
    line += ", " + std::to_string(eager_steps_) +
            " eager (forest larger than the graph's capacities); capacities per level";
    for (int64_t c : full_capacity_) line += " " + std::to_string(c);
  }
  return line;
}

}  // namespace petname::train
