#include "trainer/model/lstm_stack.h"

#include <cmath>
#include <string>
#include <utility>

#include "trainer/model/lstm_recurrence.h"

namespace petname::model {

torch::Tensor Project(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                      at::ScalarType gemm_type) {
  if (gemm_type == torch::kFloat32) return torch::addmm(b, x, w.t());
  return torch::mm(x.to(gemm_type), w.t().to(gemm_type)).to(torch::kFloat32) + b;
}

LstmStackImpl::LstmStackImpl(int64_t vocab_size, int64_t hidden_size, int64_t num_layers) {
  for (int64_t k = 0; k < num_layers; ++k) {
    const std::string suffix = "_l" + std::to_string(k);
    const int64_t in = k == 0 ? vocab_size : hidden_size;
    Layer layer;
    layer.w_ih = register_parameter("weight_ih" + suffix, torch::empty({4 * hidden_size, in}));
    layer.w_hh =
        register_parameter("weight_hh" + suffix, torch::empty({4 * hidden_size, hidden_size}));
    layer.b_ih = register_parameter("bias_ih" + suffix, torch::empty({4 * hidden_size}));
    layer.b_hh = register_parameter("bias_hh" + suffix, torch::empty({4 * hidden_size}));
    layers_.push_back(layer);
  }
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  torch::NoGradGuard no_grad;
  for (torch::Tensor& p : parameters()) p.uniform_(-bound, bound);
}

StackOutput LstmStackImpl::forward(const torch::Tensor& tokens, at::ScalarType gemm_type) {
  const torch::Tensor cpu_tokens = tokens.to(torch::kCPU).contiguous();
  StackOutput out;
  out.forest = BuildPrefixForest(cpu_tokens.data_ptr<int64_t>(), tokens.size(0), tokens.size(1));
  const PrefixForest& forest = out.forest;
  const auto index_options = torch::TensorOptions(torch::kInt64).device(tokens.device());
  out.node_index =
      torch::tensor(at::ArrayRef<int64_t>(forest.node), index_options).view(tokens.sizes());
  const torch::Tensor node_tokens =
      torch::tensor(at::ArrayRef<int64_t>(forest.token), index_options);
  const Layer& first = layers_.front();
  // Adding the bias in place keeps one [N, 4H] buffer instead of two (embedding saves only
  // the indices, so its output may be modified).
  torch::Tensor h = LstmRecurrence(
      torch::embedding(first.w_ih.t().contiguous(), node_tokens).add_(first.b_ih + first.b_hh),
      first.w_hh, forest, gemm_type);
  for (size_t k = 1; k < layers_.size(); ++k) {
    const Layer& layer = layers_[k];
    h = LstmRecurrence(Project(h, layer.w_ih, layer.b_ih + layer.b_hh, gemm_type), layer.w_hh,
                       forest, gemm_type);
  }
  out.nodes = h;
  return out;
}

}  // namespace petname::model
