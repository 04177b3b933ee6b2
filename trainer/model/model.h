// The pet-name model: character indices -> 4-layer LSTM (hidden 128) -> linear head over
// the vocabulary, predicting the next character at every position.
//
// Contract: forward() takes int64 tokens [B, T] with values in [0, vocab_size) and returns
// fp32 logits [B, T, vocab_size]. Parameters are fp32 and registered in a fixed order;
// parameters() and named_parameters() are what checkpoints and gradient sync work on.
//
// Parameter names, in registration order (the same as torch::nn::LSTM + nn::Linear, so a
// state dict of the plain port loads unchanged), for k = 0 .. num_layers-1:
//   lstm.weight_ih_lk [4H, in], lstm.weight_hh_lk [4H, H], lstm.bias_ih_lk [4H],
//   lstm.bias_hh_lk [4H]  (in = vocab_size for k = 0, else H; gate blocks i, f, g, o),
// then head.weight [vocab_size, H], head.bias [vocab_size].
//
// The LSTM is LstmStack (lstm_stack.h), computed one of three ways (LstmImpl), all the same
// function as nn::LSTM on one_hot(tokens):
// - kHostForest (the CPU default): once per distinct prefix of the batch (a prefix forest built
//   on the host), with fused host cell loops. CPU tensors only; other devices are refused with
//   an error. With kBf16 the GEMMs take bfloat16 operands while the element-wise math, cell
//   states and logits stay fp32.
// - kDeviceForest (the CUDA default): the prefix forest built and run with tensor ops on the
//   tensors' device (device_forest.h), capturable in a CUDA graph; forward_forest() gives the
//   logits once per forest node.
// - kCudnn: at::lstm over the whole batch (cuDNN on CUDA).
// The last two are device-generic (they also run, and are tested, on the CPU); with kBf16 they
// behave like autocast: activations and cell states are stored in bfloat16, logits are fp32.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "trainer/model/lstm_stack.h"

namespace petname::model {

enum class Precision { kFp32, kBf16 };

enum class LstmImpl { kHostForest, kDeviceForest, kCudnn };

// "fp32" / "bf16" <-> Precision. ParsePrecision returns false on an unknown name.
bool ParsePrecision(const std::string& name, Precision* out);
const char* PrecisionName(Precision p);

// "host-forest" / "device-forest" / "cudnn" <-> LstmImpl; false on an unknown name.
bool ParseLstmImpl(const std::string& name, LstmImpl* out);
const char* LstmImplName(LstmImpl impl);

struct ModelOptions {
  int64_t vocab_size = 31;
  int64_t hidden_size = 128;
  int64_t num_layers = 4;
  Precision precision = Precision::kFp32;
  LstmImpl impl = LstmImpl::kHostForest;
  // The device forest's backward sums shared rows in a fixed order (fixed_order.h), so that a
  // step's gradients are the same on every run (--deterministic). Forward results are the same
  // either way.
  bool fixed_order = false;
};

class CharLstmImpl : public torch::nn::Module {
 public:
  explicit CharLstmImpl(const ModelOptions& options);

  // Checks the tokens (on the host, for the device-generic implementations) and computes
  // logits [B, T, vocab_size] with options().impl.
  torch::Tensor forward(const torch::Tensor& tokens);

  // The training step's entry points: no checks and no host sync (CUDA-graph capturable);
  // tokens and forest must be valid. forward_forest: fp32 logits [N, vocab_size] of every node
  // of a device forest. forward_dense: fp32 logits [B, T, vocab_size] through at::lstm.
  torch::Tensor forward_forest(const DeviceForest& forest);
  torch::Tensor forward_dense(const torch::Tensor& tokens);

  const ModelOptions& options() const { return options_; }

 private:
  at::ScalarType compute_type() const;

  ModelOptions options_;
  LstmStack lstm_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(CharLstm);

}  // namespace petname::model
