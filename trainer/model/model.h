// The pet-name model: character indices -> 4-layer LSTM (hidden 128) -> linear head over
// the vocabulary, predicting the next character at every position.
//
// Contract: forward() takes int64 tokens [B, T] with values in [0, vocab_size) and returns
// fp32 logits [B, T, vocab_size]. The model owns its numeric precision: with kBf16 the
// heavy math runs in bfloat16 (autocast-style) while parameters and logits stay fp32, so
// the optimizer and the loss never see bf16. Parameters are registered in a fixed order;
// parameters() and named_parameters() are what checkpoints and gradient sync work on.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace petname::model {

enum class Precision { kFp32, kBf16 };

// "fp32" / "bf16" <-> Precision. ParsePrecision returns false on an unknown name.
bool ParsePrecision(const std::string& name, Precision* out);
const char* PrecisionName(Precision p);

struct ModelOptions {
  int64_t vocab_size = 31;
  int64_t hidden_size = 128;
  int64_t num_layers = 4;
  Precision precision = Precision::kFp32;
};

class CharLstmImpl : public torch::nn::Module {
 public:
  explicit CharLstmImpl(const ModelOptions& options);

  torch::Tensor forward(const torch::Tensor& tokens);

  const ModelOptions& options() const { return options_; }

 private:
  ModelOptions options_;
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(CharLstm);

}  // namespace petname::model
