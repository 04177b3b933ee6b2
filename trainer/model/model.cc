#include "trainer/model/model.h"

namespace petname::model {

bool ParsePrecision(const std::string& name, Precision* out) {
  if (name == "fp32") {
    *out = Precision::kFp32;
    return true;
  }
  if (name == "bf16") {
    *out = Precision::kBf16;
    return true;
  }
  return false;
}

const char* PrecisionName(Precision p) { return p == Precision::kBf16 ? "bf16" : "fp32"; }

bool ParseLstmImpl(const std::string& name, LstmImpl* out) {
  for (LstmImpl impl : {LstmImpl::kHostForest, LstmImpl::kDeviceForest, LstmImpl::kCudnn}) {
    if (name == LstmImplName(impl)) {
      *out = impl;
      return true;
    }
  }
  return false;
}

const char* LstmImplName(LstmImpl impl) {
  switch (impl) {
    case LstmImpl::kHostForest:
      return "host-forest";
    case LstmImpl::kDeviceForest:
      return "device-forest";
    case LstmImpl::kCudnn:
      return "cudnn";
  }
  return "?";
}

CharLstmImpl::CharLstmImpl(const ModelOptions& options) : options_(options) {
  lstm_ = register_module("lstm",
                          LstmStack(options.vocab_size, options.hidden_size, options.num_layers));
  head_ = register_module("head", torch::nn::Linear(options.hidden_size, options.vocab_size));
}

at::ScalarType CharLstmImpl::compute_type() const {
  return options_.precision == Precision::kBf16 ? torch::kBFloat16 : torch::kFloat32;
}

torch::Tensor CharLstmImpl::forward(const torch::Tensor& tokens) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kInt64,
              "CharLstm: tokens must be an int64 [B, T] tensor");
  if (options_.impl == LstmImpl::kHostForest) {
    TORCH_CHECK(tokens.is_cpu(), "CharLstm: the host prefix forest runs on CPU tensors only (got ",
                tokens.device(), "); use the device forest or cuDNN there");
    const StackOutput out = lstm_->forward(tokens, compute_type());
    // The head runs once per prefix-forest node; each (row, step) then reads its node's
    // logits. index_select's backward sums the (row, step) gradients of a node in a fixed order.
    const torch::Tensor node_logits =
        Project(out.nodes, head_->weight, head_->bias, compute_type());
    return node_logits.index_select(0, out.node_index.view({-1}))
        .view({tokens.size(0), tokens.size(1), options_.vocab_size});
  }
  if (tokens.numel() > 0) {
    const torch::Tensor host = tokens.to(torch::kCPU);
    TORCH_CHECK(host.min().item<int64_t>() >= 0 && host.max().item<int64_t>() < options_.vocab_size,
                "CharLstm: tokens must be in [0, ", options_.vocab_size, ")");
  }
  if (options_.impl == LstmImpl::kCudnn) return forward_dense(tokens);
  const DeviceForest forest =
      BuildDeviceForest(tokens, MakeForestLayout(ExactCapacity(tokens), tokens.device()));
  return forward_forest(forest)
      .index_select(0, forest.node_of)
      .view({tokens.size(0), tokens.size(1), options_.vocab_size});
}

torch::Tensor CharLstmImpl::forward_forest(const DeviceForest& forest) {
  const at::ScalarType dtype = compute_type();
  return torch::addmm(head_->bias.to(dtype),
                      lstm_->forward_forest(forest, dtype, options_.fixed_order),
                      head_->weight.t().to(dtype))
      .to(torch::kFloat32);
}

torch::Tensor CharLstmImpl::forward_dense(const torch::Tensor& tokens) {
  const at::ScalarType dtype = compute_type();
  return torch::linear(lstm_->forward_dense(tokens, dtype), head_->weight.to(dtype),
                       head_->bias.to(dtype))
      .to(torch::kFloat32);
}

}  // namespace petname::model
