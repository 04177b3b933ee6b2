#include "trainer/model/model.h"

#include <ATen/autocast_mode.h>

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
  lstm_ = register_module(
      "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(options.vocab_size, options.hidden_size)
                                  .num_layers(options.num_layers)
                                  .batch_first(true)));
  head_ = register_module("head", torch::nn::Linear(options.hidden_size, options.vocab_size));
}

torch::Tensor CharLstmImpl::forward(const torch::Tensor& tokens) {
  torch::Tensor x = torch::one_hot(tokens, options_.vocab_size).to(torch::kFloat32);
  torch::Tensor logits;
  if (options_.precision == Precision::kBf16) {
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    auto out = std::get<0>(lstm_->forward(x));
    logits = head_->forward(out).to(torch::kFloat32);
    at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
  } else {
    logits = head_->forward(std::get<0>(lstm_->forward(x)));
  }
  return logits;
}

}  // namespace petname::model
