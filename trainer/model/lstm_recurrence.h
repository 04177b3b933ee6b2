// The recurrent half of one LSTM layer as a custom autograd function with a hand-written
// backward (back-propagation through time).
//
// Forward: given the layer's input projection for every step, xproj[t] = W_ih x_t + b_ih +
// b_hh ([T, B, 4H], time-major, PyTorch gate order i, f, g, o), runs
//   gates_t = xproj[t] + W_hh h_{t-1};  (i, f, g, o, c_t, h_t) = LstmCellForward(gates_t, c_{t-1})
// from zero initial states and returns h [T, B, H]. Per step there is one recurrent GEMM and
// one fused element-wise pass. xproj is consumed, not copied: its memory is overwritten with
// the gate activations (and in backward with their gradients, which are returned as xproj's
// gradient), so the caller must pass a temporary that nothing else reads or saves. The
// activations and the cell states are kept for backward (T*B*5H floats, with h) and freed
// as soon as this layer's backward has run, nothing else.
//
// Backward: walks the steps in reverse with one GEMM (dgates_t W_hh) and one fused pass per
// step, writing the pre-activation gradients over the saved activations, then computes
// dW_hh = sum_t dgates_t^T h_{t-1} as a single GEMM over all steps. It returns the
// gradients for xproj (so the input projection and biases are differentiated by ordinary
// autograd) and for W_hh. The graph can be back-propagated once (retain_graph is refused).
//
// `gemm_type` is the element type the GEMMs run in: kFloat, or kBFloat16 (operands are
// rounded to bf16, products accumulate and are stored in fp32).
#pragma once

#include <torch/torch.h>

namespace petname::model {

// xproj: fp32 [T, B, 4H], contiguous, consumed (see above). w_hh: fp32 [4H, H]. Returns fp32
// [T, B, H].
torch::Tensor LstmRecurrence(torch::Tensor xproj, const torch::Tensor& w_hh,
                             at::ScalarType gemm_type);

}  // namespace petname::model
