#include "trainer/model/fixed_order.h"

namespace petname::model {
namespace {

class GatherSortedRowsFunction : public torch::autograd::Function<GatherSortedRowsFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& src,
                               const torch::Tensor& index, const torch::Tensor& runs) {
    ctx->save_for_backward({runs});
    return src.index_select(0, index);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor runs = ctx->get_saved_variables()[0];
    // unsafe: no host-side check of the runs (it would read them back, a host sync).
    const torch::Tensor summed =
        at::segment_reduce(grads[0].contiguous(), "sum", /*lengths=*/{}, /*indices=*/{}, runs,
                           /*axis=*/0, /*unsafe=*/true, /*initial=*/0);
    return {summed, torch::Tensor(), torch::Tensor()};
  }
};

// Counts are exact in a float while below 2^24.
constexpr int64_t kMaxExactCount = int64_t{1} << 24;

}  // namespace

torch::Tensor GatherSortedRows(const torch::Tensor& src, const torch::Tensor& index,
                               const torch::Tensor& runs) {
  return GatherSortedRowsFunction::apply(src, index, runs);
}

torch::Tensor GatherRows(const torch::Tensor& src, const torch::Tensor& index) {
  // Stable, so that the rows of one run are added in the same order every time.
  const auto [sorted, order] = index.sort(/*stable=*/true, /*dim=*/0, /*descending=*/false);
  const torch::Tensor rows = GatherSortedRows(src, sorted, SortedRuns(sorted, src.size(0)));
  const torch::Tensor back =
      torch::empty_like(order).scatter_(0, order, torch::arange(order.size(0), order.options()));
  return rows.index_select(0, back);
}

torch::Tensor SortedRuns(const torch::Tensor& index, int64_t rows) {
  return torch::searchsorted(index, torch::arange(rows + 1, index.options()));
}

torch::Tensor CountCrossEntropy(const torch::Tensor& node_logits, const torch::Tensor& node_of,
                                const torch::Tensor& targets) {
  TORCH_CHECK(node_of.numel() < kMaxExactCount,
              "CountCrossEntropy: at most 2^24 cells (rows x steps) per batch");
  const int64_t vocab = node_logits.size(1);
  const torch::Tensor cells = node_of * vocab + targets.reshape({-1});
  const torch::Tensor counts =
      torch::zeros({node_logits.numel()}, node_logits.options())
          .index_add_(0, cells, torch::ones({cells.numel()}, node_logits.options()))
          .view_as(node_logits);
  return torch::log_softmax(node_logits, 1)
      .mul(counts)
      .sum()
      .div(-static_cast<double>(cells.numel()));
}

}  // namespace petname::model
