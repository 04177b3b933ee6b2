// LstmStackImpl's device-generic forwards (lstm_stack.h).
#include <tuple>
#include <vector>

#include "trainer/model/fixed_order.h"
#include "trainer/model/lstm_stack.h"

namespace petname::model {
namespace {

// One LSTM cell over matching rows: gates = gi + gh (PyTorch order i, f, g, o), c_prev the
// previous cell state. Returns (h, c) in gi's dtype.
std::tuple<torch::Tensor, torch::Tensor> Cell(const torch::Tensor& gi, const torch::Tensor& gh,
                                              const torch::Tensor& c_prev) {
  if (gi.is_cuda()) {
    auto [h, c, workspace] = at::_thnn_fused_lstm_cell(gi, gh, c_prev);
    (void)workspace;
    return {h, c};
  }
  const std::vector<torch::Tensor> g = (gi + gh).to(torch::kFloat).chunk(4, 1);
  const torch::Tensor c = g[1].sigmoid() * c_prev.to(torch::kFloat) + g[0].sigmoid() * g[2].tanh();
  const torch::Tensor h = g[3].sigmoid() * c.tanh();
  return {h.to(gi.scalar_type()), c.to(gi.scalar_type())};
}

}  // namespace

torch::Tensor LstmStackImpl::forward_forest(const DeviceForest& forest, at::ScalarType dtype,
                                            bool fixed_order) {
  const int64_t hidden = layers_.front().w_hh.size(1);
  const auto options = torch::TensorOptions(dtype).device(forest.token.device());
  // Level t's parents, and with fixed_order their runs over level t - 1 (fixed_order.h):
  // level 0's parent is the constant zero state, which takes no gradient.
  std::vector<torch::Tensor> parents;
  std::vector<torch::Tensor> runs;
  for (size_t t = 0; t < forest.capacity.size(); ++t) {
    parents.push_back(forest.parent.narrow(0, forest.offset[t], forest.capacity[t]));
    runs.push_back(fixed_order && t > 0 ? SortedRuns(parents[t], forest.capacity[t - 1])
                                        : torch::Tensor());
  }
  torch::Tensor h;  // the previous layer's output for every node
  for (size_t k = 0; k < layers_.size(); ++k) {
    const Layer& layer = layers_[k];
    const torch::Tensor bias = (layer.b_ih + layer.b_hh).to(dtype);
    // Layer 0's input is one-hot: its projection is a row lookup of W_ih^T.
    torch::Tensor gin;
    if (k > 0) {
      gin = torch::addmm(bias, h, layer.w_ih.t().to(dtype));
    } else if (fixed_order) {
      gin = GatherRows(layer.w_ih.t().to(dtype), forest.token).add(bias);
    } else {
      gin = torch::embedding(layer.w_ih.t().to(dtype), forest.token).add(bias);
    }
    const torch::Tensor w_hh_t = layer.w_hh.t().to(dtype);
    torch::Tensor h_level = torch::zeros({1, hidden}, options);  // level 0's parent: zero state
    torch::Tensor c_level = torch::zeros({1, hidden}, options);
    std::vector<torch::Tensor> outputs;
    for (size_t t = 0; t < forest.capacity.size(); ++t) {
      const torch::Tensor h_in = runs[t].defined() ? GatherSortedRows(h_level, parents[t], runs[t])
                                                   : h_level.index_select(0, parents[t]);
      const torch::Tensor c_in = runs[t].defined() ? GatherSortedRows(c_level, parents[t], runs[t])
                                                   : c_level.index_select(0, parents[t]);
      std::tie(h_level, c_level) =
          Cell(gin.narrow(0, forest.offset[t], forest.capacity[t]), torch::mm(h_in, w_hh_t), c_in);
      outputs.push_back(h_level);
    }
    h = torch::cat(outputs);
  }
  return h;
}

torch::Tensor LstmStackImpl::forward_dense(const torch::Tensor& tokens, at::ScalarType dtype) {
  const int64_t vocab = layers_.front().w_ih.size(1);
  const int64_t hidden = layers_.front().w_hh.size(1);
  const auto layers = static_cast<int64_t>(layers_.size());
  std::vector<torch::Tensor> weights;
  for (const Layer& layer : layers_) {
    for (const torch::Tensor* w : {&layer.w_ih, &layer.w_hh, &layer.b_ih, &layer.b_hh}) {
      weights.push_back(w->to(dtype));
    }
  }
  const torch::Tensor zeros = torch::zeros({layers, tokens.size(0), hidden},
                                           torch::TensorOptions(dtype).device(tokens.device()));
  const auto out = at::lstm(torch::one_hot(tokens, vocab).to(dtype), {zeros, zeros}, weights,
                            /*has_biases=*/true, layers, /*dropout=*/0.0, is_training(),
                            /*bidirectional=*/false, /*batch_first=*/true);
  return std::get<0>(out);
}

}  // namespace petname::model
