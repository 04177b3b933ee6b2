// The pet-name model: character indices -> 4-layer LSTM (hidden 128) -> linear head over
// the vocabulary, predicting the next character at every position.
//
// Contract: forward() takes int64 tokens [B, T] with values in [0, vocab_size) and returns
// fp32 logits [B, T, vocab_size]. The model owns its numeric precision: with kBf16 the
// GEMMs take bfloat16 operands (fp32 accumulation and results) while the element-wise
// math, cell states, parameters and logits stay fp32, so the optimizer and the loss never
// see bf16. Parameters are registered in a fixed order;
// parameters() and named_parameters() are what checkpoints and gradient sync work on.
//
// Parameter names, in registration order (the same as torch::nn::LSTM + nn::Linear, so a
// state dict of the plain port loads unchanged), for k = 0 .. num_layers-1:
//   lstm.weight_ih_lk [4H, in], lstm.weight_hh_lk [4H, H], lstm.bias_ih_lk [4H],
//   lstm.bias_hh_lk [4H]  (in = vocab_size for k = 0, else H; gate blocks i, f, g, o),
// then head.weight [vocab_size, H], head.bias [vocab_size].
// The LSTM is LstmStack (lstm_stack.h): the same function as nn::LSTM on one_hot(tokens),
// computed once per distinct prefix of the batch (a prefix forest), with an embedding lookup
// for layer 0 and a hand-written recurrence; the head also runs once per distinct prefix.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "trainer/model/lstm_stack.h"

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
  LstmStack lstm_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(CharLstm);

}  // namespace petname::model
