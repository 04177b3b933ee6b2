#include "trainer/model/lstm_recurrence.h"

#include <ATen/Parallel.h>

#include "trainer/model/lstm_cell.h"

namespace petname::model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Rows of the batch handed to one thread at a time in the element-wise passes.
constexpr int64_t kRowGrain = 64;

// a [M, K] times b [K, N] with operands in b's element type; the result is fp32.
torch::Tensor Gemm(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::mm(a.to(b.scalar_type()), b).to(torch::kFloat32);
}

class Recurrence : public torch::autograd::Function<Recurrence> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor xproj, const torch::Tensor& w_hh,
                               at::ScalarType gemm_type) {
    const int64_t steps = xproj.size(0);
    const int64_t batch = xproj.size(1);
    const int64_t hidden = w_hh.size(1);
    torch::Tensor w_t = w_hh.t().to(gemm_type).contiguous();  // [H, 4H]
    torch::Tensor gates = xproj;  // consumed: pre-activations, then activations
    torch::Tensor c = torch::empty({steps, batch, hidden}, xproj.options());
    torch::Tensor h = torch::empty({steps, batch, hidden}, xproj.options());
    torch::Tensor zeros = torch::zeros({batch, hidden}, xproj.options());
    for (int64_t t = 0; t < steps; ++t) {
      torch::Tensor g = gates[t];
      if (t > 0) g.add_(Gemm(h[t - 1], w_t));
      const torch::Tensor c_prev = t > 0 ? c[t - 1] : zeros;
      float* g_ptr = g.data_ptr<float>();
      const float* cp_ptr = c_prev.data_ptr<float>();
      float* c_ptr = c[t].data_ptr<float>();
      float* h_ptr = h[t].data_ptr<float>();
      at::parallel_for(0, batch, kRowGrain, [&](int64_t begin, int64_t end) {
        LstmCellForward(end - begin, hidden, g_ptr + begin * 4 * hidden, cp_ptr + begin * hidden,
                        c_ptr + begin * hidden, h_ptr + begin * hidden);
      });
    }
    if (xproj.requires_grad() || w_hh.requires_grad()) {
      ctx->save_for_backward({w_hh, h});
      ctx->saved_data["gates"] = gates;
      ctx->saved_data["c"] = c;
      ctx->saved_data["gemm_type"] = static_cast<int64_t>(gemm_type);
    }
    return h;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    TORCH_CHECK(!ctx->saved_data.count("consumed"),
                "LstmRecurrence: backward through the same graph twice is not supported");
    ctx->saved_data["consumed"] = true;
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& w_hh = saved[0];
    const torch::Tensor& h = saved[1];
    torch::Tensor gates = ctx->saved_data["gates"].toTensor();
    const torch::Tensor c = ctx->saved_data["c"].toTensor();
    // The node keeps saved_data until the whole graph dies; drop it now so that each layer's
    // buffers are freed as soon as the backward pass has moved below it.
    ctx->saved_data.erase("gates");
    ctx->saved_data.erase("c");
    const auto gemm_type = static_cast<at::ScalarType>(ctx->saved_data["gemm_type"].toInt());
    const int64_t steps = gates.size(0);
    const int64_t batch = gates.size(1);
    const int64_t hidden = w_hh.size(1);
    torch::Tensor w = w_hh.to(gemm_type).contiguous();  // [4H, H]

    torch::Tensor dout =
        grad_outputs[0].defined() ? grad_outputs[0].contiguous() : torch::zeros_like(h);
    torch::Tensor dc = torch::zeros({batch, hidden}, c.options());
    torch::Tensor zeros = torch::zeros({batch, hidden}, c.options());
    for (int64_t t = steps - 1; t >= 0; --t) {
      torch::Tensor dh = dout[t];
      if (t < steps - 1) dh = dh + Gemm(gates[t + 1], w);
      const torch::Tensor c_prev = t > 0 ? c[t - 1] : zeros;
      float* g_ptr = gates[t].data_ptr<float>();
      const float* cp_ptr = c_prev.data_ptr<float>();
      const float* c_ptr = c[t].data_ptr<float>();
      const float* dh_ptr = dh.data_ptr<float>();
      float* dc_ptr = dc.data_ptr<float>();
      at::parallel_for(0, batch, kRowGrain, [&](int64_t begin, int64_t end) {
        LstmCellBackward(end - begin, hidden, g_ptr + begin * 4 * hidden, cp_ptr + begin * hidden,
                         c_ptr + begin * hidden, dh_ptr + begin * hidden, dc_ptr + begin * hidden);
      });
    }
    // dW_hh = sum over t >= 1 of dgates_t^T h_{t-1} (h_{-1} = 0 contributes nothing).
    torch::Tensor dw_hh;
    if (steps > 1) {
      torch::Tensor dg = gates.narrow(0, 1, steps - 1).reshape({-1, 4 * hidden});
      torch::Tensor hp = h.narrow(0, 0, steps - 1).reshape({-1, hidden});
      dw_hh = Gemm(dg.t(), hp.to(gemm_type));
    } else {
      dw_hh = torch::zeros_like(w_hh);
    }
    return {gates, dw_hh, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor LstmRecurrence(torch::Tensor xproj, const torch::Tensor& w_hh,
                             at::ScalarType gemm_type) {
  TORCH_CHECK(xproj.dim() == 3 && xproj.scalar_type() == torch::kFloat32 && xproj.is_contiguous(),
              "LstmRecurrence: xproj must be a contiguous fp32 [T, B, 4H] tensor");
  TORCH_CHECK(w_hh.dim() == 2 && w_hh.size(0) == xproj.size(2) && w_hh.size(0) == 4 * w_hh.size(1),
              "LstmRecurrence: w_hh must be [4H, H] matching xproj");
  return Recurrence::apply(xproj, w_hh, gemm_type);
}

}  // namespace petname::model
