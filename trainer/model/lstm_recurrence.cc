#include "trainer/model/lstm_recurrence.h"

#include <ATen/Parallel.h>

#include <vector>

#include "trainer/model/lstm_cell.h"

namespace petname::model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Nodes handed to one thread at a time in the element-wise passes.
constexpr int64_t kRowGrain = 64;

// a [M, K] times b [K, N] with operands in b's element type; the result is fp32.
torch::Tensor Gemm(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::mm(a.to(b.scalar_type()), b).to(torch::kFloat32);
}

torch::Tensor ToTensor(const std::vector<int64_t>& v) {
  return torch::tensor(at::ArrayRef<int64_t>(v), torch::kInt64);
}

// dst[p] = sum of src[c] over the children c of p, for parents p in [begin, end); rows are
// `width` floats, ids index both arrays. Each row sums its children in id order.
void SumChildren(int64_t begin, int64_t end, const int64_t* child_begin, int64_t width,
                 const float* src, float* dst) {
  at::parallel_for(begin, end, kRowGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      float* out = dst + p * width;
      const float* first = src + child_begin[p] * width;
      for (int64_t j = 0; j < width; ++j) out[j] = first[j];
      for (int64_t c = child_begin[p] + 1; c < child_begin[p + 1]; ++c) {
        const float* in = src + c * width;
        for (int64_t j = 0; j < width; ++j) out[j] += in[j];
      }
    }
  });
}

class Recurrence : public torch::autograd::Function<Recurrence> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor xproj, const torch::Tensor& w_hh,
                               const PrefixForest& forest, at::ScalarType gemm_type) {
    const int64_t nodes = xproj.size(0);
    const int64_t hidden = w_hh.size(1);
    const std::vector<int64_t>& offsets = forest.level_offsets;
    const int64_t* parent = forest.parent.data();
    torch::Tensor w_t = w_hh.t().to(gemm_type).contiguous();  // [H, 4H]
    torch::Tensor gates = xproj;  // consumed: pre-activations, then activations
    torch::Tensor c = torch::empty({nodes, hidden}, xproj.options());
    torch::Tensor h = torch::empty({nodes, hidden}, xproj.options());
    const std::vector<float> zeros(static_cast<size_t>(hidden), 0.0f);
    float* g_ptr = gates.data_ptr<float>();
    float* c_ptr = c.data_ptr<float>();
    float* h_ptr = h.data_ptr<float>();
    for (int64_t t = 0; t + 1 < static_cast<int64_t>(offsets.size()); ++t) {
      const int64_t begin = offsets[t];
      const int64_t end = offsets[t + 1];
      // The recurrent term of every parent once, then added to each of its children.
      torch::Tensor rec;
      if (t > 0) rec = Gemm(h.narrow(0, offsets[t - 1], begin - offsets[t - 1]), w_t);
      const float* rec_ptr = t > 0 ? rec.data_ptr<float>() : nullptr;
      const int64_t parent_base = t > 0 ? offsets[t - 1] : 0;
      at::parallel_for(begin, end, kRowGrain, [&](int64_t lo, int64_t hi) {
        for (int64_t n = lo; n < hi; ++n) {
          float* g = g_ptr + n * 4 * hidden;
          const float* c_prev = zeros.data();
          if (t > 0) {
            const float* r = rec_ptr + (parent[n] - parent_base) * 4 * hidden;
            for (int64_t j = 0; j < 4 * hidden; ++j) g[j] += r[j];
            c_prev = c_ptr + parent[n] * hidden;
          }
          LstmCellForward(1, hidden, g, c_prev, c_ptr + n * hidden, h_ptr + n * hidden);
        }
      });
    }
    if (xproj.requires_grad() || w_hh.requires_grad()) {
      ctx->save_for_backward({w_hh, h});
      ctx->saved_data["gates"] = gates;
      ctx->saved_data["c"] = c;
      ctx->saved_data["offsets"] = ToTensor(offsets);
      ctx->saved_data["parent"] = ToTensor(forest.parent);
      ctx->saved_data["child_begin"] = ToTensor(forest.child_begin);
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
    const torch::Tensor offsets_t = ctx->saved_data["offsets"].toTensor();
    const torch::Tensor parent_t = ctx->saved_data["parent"].toTensor();
    const torch::Tensor child_begin_t = ctx->saved_data["child_begin"].toTensor();
    // The node keeps saved_data until the whole graph dies; drop it now so that each layer's
    // buffers are freed as soon as the backward pass has moved below it.
    for (const char* key : {"gates", "c", "offsets", "parent", "child_begin"}) {
      ctx->saved_data.erase(key);
    }
    const auto gemm_type = static_cast<at::ScalarType>(ctx->saved_data["gemm_type"].toInt());
    const int64_t* offsets = offsets_t.data_ptr<int64_t>();
    const int64_t* parent = parent_t.data_ptr<int64_t>();
    const int64_t* child_begin = child_begin_t.data_ptr<int64_t>();
    const int64_t levels = offsets_t.size(0) - 1;
    const int64_t nodes = gates.size(0);
    const int64_t hidden = w_hh.size(1);
    const int64_t inner = levels > 0 ? offsets[levels - 1] : 0;  // nodes that have children
    torch::Tensor w = w_hh.to(gemm_type).contiguous();           // [4H, H]

    torch::Tensor dout =
        grad_outputs[0].defined() ? grad_outputs[0].contiguous() : torch::zeros_like(h);
    // child_gates[p]: sum of p's children's gate gradients; dc[n]: gradient w.r.t. c_n, then
    // (after n's cell pass) w.r.t. c_parent(n).
    torch::Tensor child_gates = torch::empty({inner, 4 * hidden}, gates.options());
    torch::Tensor dc = torch::empty({nodes, hidden}, c.options());
    dc.narrow(0, inner, nodes - inner).zero_();
    const std::vector<float> zeros(static_cast<size_t>(hidden), 0.0f);
    float* g_ptr = gates.data_ptr<float>();
    const float* c_ptr = c.data_ptr<float>();
    float* cg_ptr = child_gates.data_ptr<float>();
    float* dc_ptr = dc.data_ptr<float>();
    for (int64_t t = levels - 1; t >= 0; --t) {
      const int64_t begin = offsets[t];
      const int64_t end = offsets[t + 1];
      torch::Tensor dh = dout.narrow(0, begin, end - begin);
      if (t < levels - 1) dh = Gemm(child_gates.narrow(0, begin, end - begin), w).add_(dh);
      const float* dh_ptr = dh.data_ptr<float>();
      at::parallel_for(begin, end, kRowGrain, [&](int64_t lo, int64_t hi) {
        for (int64_t n = lo; n < hi; ++n) {
          const float* c_prev = t > 0 ? c_ptr + parent[n] * hidden : zeros.data();
          LstmCellBackward(1, hidden, g_ptr + n * 4 * hidden, c_prev, c_ptr + n * hidden,
                           dh_ptr + (n - begin) * hidden, dc_ptr + n * hidden);
        }
      });
      if (t > 0) {
        SumChildren(offsets[t - 1], begin, child_begin, 4 * hidden, g_ptr, cg_ptr);
        SumChildren(offsets[t - 1], begin, child_begin, hidden, dc_ptr, dc_ptr);
      }
    }
    // dW_hh = sum over nodes n at levels >= 1 of dgates_n^T h_parent(n), grouped by parent.
    torch::Tensor dw_hh = inner > 0 ? Gemm(child_gates.t(), h.narrow(0, 0, inner).to(gemm_type))
                                    : torch::zeros_like(w_hh);
    return {gates, dw_hh, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor LstmRecurrence(torch::Tensor xproj, const torch::Tensor& w_hh,
                             const PrefixForest& forest, at::ScalarType gemm_type) {
  TORCH_CHECK(xproj.is_cpu() && w_hh.is_cpu(),
              "LstmRecurrence: the host recurrence runs on CPU tensors only (got ", xproj.device(),
              "); use the device forest or cuDNN there");
  TORCH_CHECK(xproj.dim() == 2 && xproj.scalar_type() == torch::kFloat32 && xproj.is_contiguous(),
              "LstmRecurrence: xproj must be a contiguous fp32 [N, 4H] tensor");
  TORCH_CHECK(xproj.size(0) == forest.size(), "LstmRecurrence: xproj must have a row per node");
  TORCH_CHECK(w_hh.dim() == 2 && w_hh.size(0) == xproj.size(1) && w_hh.size(0) == 4 * w_hh.size(1),
              "LstmRecurrence: w_hh must be [4H, H] matching xproj");
  return Recurrence::apply(xproj, w_hh, forest, gemm_type);
}

}  // namespace petname::model
