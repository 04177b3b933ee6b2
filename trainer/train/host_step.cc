#include "trainer/train/host_step.h"

#include <algorithm>

#include "trainer/data/vocabulary.h"
#include "trainer/distributed/batch_split.h"

namespace petname::train {
namespace {

void SetLearningRate(torch::optim::Adam& optimizer, double lr) {
  for (torch::optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
}

}  // namespace

HostStep::HostStep(const StepContext& context, const dist::GradSyncOptions& grad_sync)
    : c_(context), grad_sync_(context.comm, context.model->parameters(), grad_sync) {}

void HostStep::BeginEpoch(const std::vector<torch::Tensor>& shards) { shards_ = shards; }

torch::Tensor HostStep::RankBatch(int64_t b, int64_t* global_rows) const {
  std::vector<torch::Tensor> slices;
  for (const torch::Tensor& shard : shards_) {
    slices.push_back(shard.slice(0, b * c_.batch_size, (b + 1) * c_.batch_size));
  }
  if (slices.size() == 1) {
    *global_rows = slices[0].size(0);
    return slices[0];
  }
  const torch::Tensor global = torch::cat(slices);
  *global_rows = global.size(0);
  const int64_t window = c_.train_x.size(1);
  const int64_t* rows = global.data_ptr<int64_t>();
  std::vector<uint8_t> tokens(static_cast<size_t>(*global_rows * window));
  for (int64_t k = 0; k < *global_rows; ++k) {
    std::copy_n(c_.train->inputs.begin() + static_cast<std::ptrdiff_t>(rows[k] * window), window,
                tokens.begin() + static_cast<std::ptrdiff_t>(k * window));
  }
  std::vector<int64_t> mine =
      dist::RankRowsOfBatch(tokens.data(), *global_rows, window, c_.rank.world_size, c_.rank.rank);
  return global.index_select(
      0, torch::from_blob(mine.data(), {static_cast<int64_t>(mine.size())}, torch::kInt64));
}

Status HostStep::Run(int64_t b, double lr, bool stop_vote, StepResult* out) {
  int64_t global_rows = 0;
  const torch::Tensor index = RankBatch(b, &global_rows);
  const torch::Tensor x = c_.train_x.index_select(0, index);
  const torch::Tensor y = c_.train_y.index_select(0, index);

  c_.optimizer->zero_grad();
  grad_sync_.BeginStep(stop_vote);
  const torch::Tensor logits = c_.model->forward(x);
  const torch::Tensor loss = torch::nn::functional::cross_entropy(
      logits.reshape({-1, data::kVocabularySize}), y.reshape({-1}));
  const double scale = dist::RankLossScale(index.size(0), global_rows, c_.rank.world_size);
  (scale == 1.0 ? loss : loss * scale).backward();
  PETNAME_RETURN_IF_ERROR(grad_sync_.FinishStep(&out->stop));
  SetLearningRate(*c_.optimizer, lr);
  c_.optimizer->step();
  out->loss = loss.detach();
  out->rows = index.size(0);
  out->wait_seconds = grad_sync_.last_wait_seconds();
  return Status::Ok();
}

}  // namespace petname::train
