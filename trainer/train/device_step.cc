#include "trainer/train/device_step.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "trainer/data/vocabulary.h"
#include "trainer/model/device_forest.h"
#include "trainer/model/prefix_forest.h"

namespace petname::train {

DeviceStep::DeviceStep(const StepContext& context)
    : c_(context),
      forest_(context.model->options().impl == model::LstmImpl::kDeviceForest),
      params_(context.model->parameters()),
      adam_(params_, *context.optimizer) {
  TORCH_CHECK(forest_ || c_.model->options().impl == model::LstmImpl::kCudnn,
              "DeviceStep: the model must use the device forest or cuDNN");
  grad_ = torch::zeros({adam_.numel() + 1}, params_.front().options());
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
  const torch::Tensor x = c_.train_x.index_select(0, ids);
  const torch::Tensor y = c_.train_y.index_select(0, ids);
  torch::Tensor loss;
  if (forest_) {
    const model::DeviceForest forest = model::BuildDeviceForest(x, layout);
    loss = model::NodeCrossEntropy(c_.model->forward_forest(forest), forest.node_of, y);
  } else {
    loss = torch::nn::functional::cross_entropy(
        c_.model->forward_dense(x).reshape({-1, data::kVocabularySize}), y.reshape({-1}));
  }
  adam_.FlattenInto(torch::autograd::grad({loss}, params_), grad_body_);
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
  if (fits) {
    shape.call->Run();
    out->loss = shape.loss;
    ++graphed_steps_;
  } else {
    out->loss = ForwardBackward(shape.ids, model::MakeForestLayout(sizes, shard_.device()));
    ++eager_steps_;
  }

  const auto wait_start = std::chrono::steady_clock::now();
  const bool several = c_.rank.world_size > 1;
  if (several) grad_[-1].fill_(stop_vote ? 1.0 : 0.0);
  PETNAME_RETURN_IF_ERROR(c_.comm->AllreduceSum(grad_));
  out->stop = several ? grad_[-1].item<double>() > 0 : stop_vote;
  out->wait_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
  adam_.SetLearningRate(lr);
  update_->Run();
  out->rows = rows;
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
