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

CharLstmImpl::CharLstmImpl(const ModelOptions& options) : options_(options) {
  lstm_ = register_module("lstm",
                          LstmStack(options.vocab_size, options.hidden_size, options.num_layers));
  head_ = register_module("head", torch::nn::Linear(options.hidden_size, options.vocab_size));
}

torch::Tensor CharLstmImpl::forward(const torch::Tensor& tokens) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kInt64,
              "CharLstm: tokens must be an int64 [B, T] tensor");
  const at::ScalarType gemm_type =
      options_.precision == Precision::kBf16 ? torch::kBFloat16 : torch::kFloat32;
  const StackOutput out = lstm_->forward(tokens, gemm_type);
  // The head runs once per prefix-forest node; each (row, step) then reads its node's logits.
  // index_select's backward sums the (row, step) gradients of a node in a fixed order.
  const torch::Tensor node_logits = Project(out.nodes, head_->weight, head_->bias, gemm_type);
  return node_logits.index_select(0, out.node_index.view({-1}))
      .view({tokens.size(0), tokens.size(1), options_.vocab_size});
}

}  // namespace petname::model
