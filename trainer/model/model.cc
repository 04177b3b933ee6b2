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
  const int64_t batch = tokens.size(0);
  const int64_t steps = tokens.size(1);
  torch::Tensor h = lstm_->forward(tokens.t().contiguous(), gemm_type);  // [T, B, H]
  torch::Tensor logits =
      Project(h.view({steps * batch, options_.hidden_size}), head_->weight, head_->bias, gemm_type);
  return logits.view({steps, batch, options_.vocab_size}).transpose(0, 1).contiguous();
}

}  // namespace petname::model
