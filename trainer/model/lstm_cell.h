// The element-wise half of an LSTM step, fused into one pass over memory (no LibTorch).
//
// Gate layout is PyTorch's: a row of `gates` holds 4*hidden values in the order
// i (input), f (forget), g (cell candidate), o (output), each `hidden` wide. Arrays are
// row-major with `rows` rows; rows are independent, so callers may split them across
// threads by offsetting every pointer by the same row range.
//
// Forward, per element:  i = sigmoid(gi), f = sigmoid(gf), g = tanh(gg), o = sigmoid(go),
//                        c = f * c_prev + i * g,   h = o * tanh(c).
// Backward inverts it given dh (gradient w.r.t. h at this step, from the layer above and
// from the next step) and dc (gradient w.r.t. c flowing back from the next step).
//
// sigmoid and tanh are computed from a vectorisable exp with about 1 ulp error; results
// agree with std::exp-based formulas to ~1e-6 absolute.
#pragma once

#include <cstdint>

namespace petname::model {

// `gates` holds pre-activations on entry and the activations i, f, g, o on return.
// `c_prev` is the previous cell state (zeros at the first step). Writes c [rows, hidden] and h
// [rows, hidden].
void LstmCellForward(int64_t rows, int64_t hidden, float* gates, const float* c_prev, float* c,
                     float* h);

// `gates` holds the activations saved by LstmCellForward on entry and the gradients with
// respect to the pre-activations on return. `c` is this step's cell state, `c_prev` the
// previous one. `dc` holds the gradient w.r.t. c from the next step on entry
// (zeros at the last step) and the gradient w.r.t. c_prev on return.
void LstmCellBackward(int64_t rows, int64_t hidden, float* gates, const float* c_prev,
                      const float* c, const float* dh, float* dc);

}  // namespace petname::model
