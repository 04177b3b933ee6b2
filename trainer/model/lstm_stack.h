// A stack of LSTM layers over character tokens: numerically the same function as
// torch::nn::LSTM(vocab_size -> hidden, num_layers, zero initial states, both biases,
// PyTorch gate order i, f, g, o) applied to one_hot(tokens), computed faster:
//
// - Layer 0 reads its input projection as rows of W_ih^T instead of multiplying a one-hot
//   matrix: one_hot(x) @ W_ih^T == W_ih^T[x] exactly (each output element is one weight
//   times 1.0 plus zeros), so this is an embedding lookup with the transposed weight.
// - Every layer computes its input projection for all time steps as one GEMM, then runs
//   LstmRecurrence (one recurrent GEMM + one fused element-wise pass per step, hand-written
//   backward).
//
// Parameters are registered exactly as torch::nn::LSTM names and orders them, per layer k:
// weight_ih_lk [4H, in], weight_hh_lk [4H, H], bias_ih_lk [4H], bias_hh_lk [4H]
// (in = vocab_size for k = 0, H otherwise), initialised like nn::LSTM: U(-1/sqrt(H), 1/sqrt(H))
// in registration order. A state dict of nn::LSTM therefore loads here unchanged.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace petname::model {

class LstmStackImpl : public torch::nn::Module {
 public:
  LstmStackImpl(int64_t vocab_size, int64_t hidden_size, int64_t num_layers);

  // tokens: int64 [T, B] (time-major). Returns the last layer's outputs, fp32 [T, B, H].
  // GEMMs run in `gemm_type` (kFloat or kBFloat16); parameters stay fp32.
  torch::Tensor forward(const torch::Tensor& tokens, at::ScalarType gemm_type);

 private:
  struct Layer {
    torch::Tensor w_ih, w_hh, b_ih, b_hh;
  };
  int64_t hidden_size_;
  std::vector<Layer> layers_;
};
TORCH_MODULE(LstmStack);

// x [N, in] @ w^T [in, out] + b with the product in `gemm_type`; fp32 result [N, out].
torch::Tensor Project(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                      at::ScalarType gemm_type);

}  // namespace petname::model
