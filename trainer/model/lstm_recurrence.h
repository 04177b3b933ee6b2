// The recurrent half of one LSTM layer over a prefix forest (prefix_forest.h), as a custom
// autograd function with a hand-written backward (back-propagation through the tree).
//
// Forward: given the layer's input projection for every node, xproj[n] = W_ih x_n + b_ih +
// b_hh ([N, 4H], PyTorch gate order i, f, g, o), computes level by level
//   gates_n = xproj[n] + W_hh h_parent(n);  (i, f, g, o, c_n, h_n) = LstmCellForward(gates_n,
//   c_parent(n))
// with zero state as the parent of level 0, and returns h [N, H]. Since a node's state
// depends only on its prefix, h_n is exactly the state every (row, step) of that node would
// get from the plain per-row recurrence; only float summation order differs. Per level there
// is one recurrent GEMM over the parent level's rows (its result is gathered to the
// children) and one fused element-wise pass.
//
// xproj is consumed, not copied: its memory is overwritten with the gate activations (and in
// backward with their gradients, which are returned as xproj's gradient), so the caller must
// pass a temporary that nothing else reads or saves. The activations and cell states are
// kept for backward (N*6H floats, with h) and freed as soon as this layer's backward has run.
//
// Backward: walks the levels in reverse. A node's output gradient is its incoming gradient
// plus (sum of its children's gate gradients) W_hh, and its cell gradient is the sum of its
// children's c_parent gradients; children sums run over the contiguous child ranges in id
// order, so results are deterministic for a fixed thread count. One GEMM and one fused pass
// per level, then dW_hh = sum over parents p of (children's gate gradients of p)^T h_p as
// one GEMM. It returns the gradients for xproj (the input projection and biases are
// differentiated by ordinary autograd) and for W_hh. The graph can be back-propagated once
// (retain_graph is refused).
//
// `gemm_type` is the element type the GEMMs run in: kFloat, or kBFloat16 (operands are
// rounded to bf16, products accumulate and are stored in fp32).
#pragma once

#include <torch/torch.h>

#include "trainer/model/prefix_forest.h"

namespace petname::model {

// xproj: fp32 [N, 4H] (N = forest.size()), contiguous, consumed (see above). w_hh: fp32
// [4H, H]. Returns fp32 [N, H], row n the output of node n.
torch::Tensor LstmRecurrence(torch::Tensor xproj, const torch::Tensor& w_hh,
                             const PrefixForest& forest, at::ScalarType gemm_type);

}  // namespace petname::model
