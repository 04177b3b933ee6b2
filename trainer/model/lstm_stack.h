// A stack of LSTM layers over character tokens: numerically the same function as
// torch::nn::LSTM(vocab_size -> hidden, num_layers, zero initial states, both biases,
// PyTorch gate order i, f, g, o) applied to one_hot(tokens), computed faster:
//
// - Layer 0 reads its input projection as rows of W_ih^T instead of multiplying a one-hot
//   matrix: one_hot(x) @ W_ih^T == W_ih^T[x] exactly (each output element is one weight
//   times 1.0 plus zeros), so this is an embedding lookup with the transposed weight.
// - Each distinct prefix of the batch is computed once: the rows' prefix forest
//   (prefix_forest.h) has one node per distinct prefix, and the state of an LSTM after a
//   prefix depends on nothing else, so every layer runs over the N nodes instead of the B*T
//   (row, step) pairs. This is exact, not an approximation: each (row, step) gets the state
//   its prefix's node computed, the same function of the same values (only the float
//   summation order of the backward's sums differs). Left-padded name windows share most of
//   their prefixes (N is ~19 % of B*T for a shuffled batch of 4096 training windows).
// - Layer 0's input projection is an embedding lookup of the node tokens; every layer above
//   computes its input projection for all nodes as one GEMM, then runs LstmRecurrence over
//   the forest (one recurrent GEMM + one fused element-wise pass per level, hand-written
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

#include "trainer/model/device_forest.h"
#include "trainer/model/prefix_forest.h"

namespace petname::model {

// The stack's result for a batch: one output per prefix-forest node and where each
// (row, step) finds its node.
struct StackOutput {
  torch::Tensor nodes;       // fp32 [N, H]: the last layer's output after each node's prefix
  torch::Tensor node_index;  // int64 [B, T]: the node of (row, step), on the tokens' device
  PrefixForest forest;
};

class LstmStackImpl : public torch::nn::Module {
 public:
  LstmStackImpl(int64_t vocab_size, int64_t hidden_size, int64_t num_layers);

  // tokens: int64 [B, T] (batch-first). The output of (row b, step t) is
  // nodes[node_index[b][t]]. GEMMs run in `gemm_type` (kFloat or kBFloat16); parameters stay
  // fp32.
  StackOutput forward(const torch::Tensor& tokens, at::ScalarType gemm_type);

  // The device-generic implementations (lstm_stack_device.cc): tensor ops only, on whatever
  // device the parameters and inputs share, with no host sync (CUDA-graph capturable). Their
  // activations and cell states are stored in `dtype` (kFloat or kBFloat16, autocast-like:
  // element-wise math in fp32 on CUDA, results rounded to dtype); parameters stay fp32.
  //
  // forward_forest: the last layer's output [N, H] for every node of a device forest, level
  // by level (per level: gather the parents' states, one recurrent GEMM, one LSTM cell; on
  // CUDA the cell is LibTorch's fused kernel, elsewhere element-wise ops). With fixed_order,
  // the parents' gradients are summed in a fixed order (fixed_order.h; --deterministic).
  torch::Tensor forward_forest(const DeviceForest& forest, at::ScalarType dtype,
                               bool fixed_order = false);
  // forward_dense: at::lstm over one_hot(tokens) [B, T, vocab] (cuDNN on CUDA), output
  // [B, T, H].
  torch::Tensor forward_dense(const torch::Tensor& tokens, at::ScalarType dtype);

 private:
  struct Layer {
    torch::Tensor w_ih, w_hh, b_ih, b_hh;
  };
  std::vector<Layer> layers_;
};
TORCH_MODULE(LstmStack);

// x [N, in] @ w^T [in, out] + b with the product in `gemm_type`; fp32 result [N, out].
torch::Tensor Project(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                      at::ScalarType gemm_type);

}  // namespace petname::model
