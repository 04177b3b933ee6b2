// The fixed-order gradient sums of --deterministic (fixed_order.h) against the ops they stand
// for, on the CPU: the same values forward, the same gradients backward to float rounding, and
// the device forest's level order they rely on.
#include "trainer/model/fixed_order.h"

#include <gtest/gtest.h>

#include <functional>
#include <utility>
#include <vector>

#include "tests/trainer/model/windows.h"
#include "trainer/model/device_forest.h"
#include "trainer/model/model.h"

namespace petname::model {
namespace {

using testing::kSteps;
using testing::Windows;

// d(sum(out * weights))/d(src) for out = gather(src), with a fixed random weighting.
torch::Tensor GradientOf(const torch::Tensor& src,
                         const std::function<torch::Tensor(const torch::Tensor&)>& gather) {
  const torch::Tensor leaf = src.detach().clone().requires_grad_(true);
  const torch::Tensor out = gather(leaf);
  torch::manual_seed(11);
  (out * torch::randn(out.sizes())).sum().backward();
  return leaf.grad();
}

TEST(FixedOrderTest, GatherSortedRowsIsIndexSelectWithASequentialBackward) {
  torch::manual_seed(1);
  const torch::Tensor src = torch::randn({7, 5});
  // Rows 1 and 4 are never read; row 6 is read by the last three positions.
  const torch::Tensor index = torch::tensor({0, 0, 2, 3, 3, 3, 5, 6, 6, 6}, torch::kInt64);
  const torch::Tensor runs = SortedRuns(index, src.size(0));
  EXPECT_TRUE(runs.equal(torch::tensor({0, 2, 2, 3, 6, 6, 7, 10}, torch::kInt64)));
  EXPECT_TRUE(GatherSortedRows(src, index, runs).equal(src.index_select(0, index)));
  const torch::Tensor fixed =
      GradientOf(src, [&](const torch::Tensor& s) { return GatherSortedRows(s, index, runs); });
  const torch::Tensor plain =
      GradientOf(src, [&](const torch::Tensor& s) { return s.index_select(0, index); });
  EXPECT_LT((fixed - plain).abs().max().item<float>(), 1e-6);
  EXPECT_EQ(fixed[1].abs().sum().item<float>(), 0);  // an unread row takes no gradient
}

TEST(FixedOrderTest, GatherRowsTakesAnyIndex) {
  torch::manual_seed(2);
  const torch::Tensor src = torch::randn({31, 16});
  const torch::Tensor index = torch::randint(0, 31, {500}, torch::kInt64);
  EXPECT_TRUE(GatherRows(src, index).equal(src.index_select(0, index)));
  const torch::Tensor fixed =
      GradientOf(src, [&](const torch::Tensor& s) { return GatherRows(s, index); });
  const torch::Tensor plain =
      GradientOf(src, [&](const torch::Tensor& s) { return s.index_select(0, index); });
  EXPECT_LT((fixed - plain).abs().max().item<float>(), 1e-5);
}

TEST(FixedOrderTest, CountCrossEntropyIsNodeCrossEntropy) {
  const torch::Tensor tokens = Windows(64, 5);
  const DeviceForest f =
      BuildDeviceForest(tokens, MakeForestLayout(ExactCapacity(tokens), tokens.device()));
  torch::manual_seed(6);
  const torch::Tensor logits = torch::randn({f.padded_size(), 31});
  const torch::Tensor targets = torch::randint(31, {64, kSteps}, torch::kInt64);
  auto loss_and_grad = [&](bool counted) {
    const torch::Tensor leaf = logits.clone().requires_grad_(true);
    const torch::Tensor loss = counted ? CountCrossEntropy(leaf, f.node_of, targets)
                                       : NodeCrossEntropy(leaf, f.node_of, targets);
    loss.backward();
    return std::make_pair(loss.item<float>(), leaf.grad());
  };
  const auto [counted, counted_grad] = loss_and_grad(true);
  const auto [plain, plain_grad] = loss_and_grad(false);
  EXPECT_NEAR(counted, plain, 1e-6);
  EXPECT_LT((counted_grad - plain_grad).abs().max().item<float>(), 1e-7);
}

// Every level's parents never decrease, padding slots included: what SortedRuns needs.
TEST(FixedOrderTest, EachLevelsParentsNeverDecrease) {
  const torch::Tensor tokens = Windows(200, 3);
  std::vector<int64_t> padded = ExactCapacity(tokens);
  for (int64_t& c : padded) c = std::min<int64_t>(c + 13, tokens.size(0));
  const DeviceForest f = BuildDeviceForest(tokens, MakeForestLayout(padded, tokens.device()));
  for (size_t t = 1; t < f.capacity.size(); ++t) {
    const torch::Tensor parent = f.parent.narrow(0, f.offset[t], f.capacity[t]);
    EXPECT_TRUE(parent.slice(0, 1).ge(parent.slice(0, 0, -1)).all().item<bool>()) << t;
    EXPECT_LT(parent.max().item<int64_t>(), f.capacity[t - 1]) << t;
  }
}

// The whole device-forest model with fixed-order sums: the same logits, and the same gradients
// to float rounding, as with PyTorch's gathers.
TEST(FixedOrderTest, TheDeviceForestModelTrainsTheSameFunction) {
  const torch::Tensor tokens = Windows(300, 4);
  std::vector<int64_t> padded = ExactCapacity(tokens);
  for (int64_t& c : padded) c = std::min<int64_t>(c + 9, tokens.size(0));
  const DeviceForest f = BuildDeviceForest(tokens, MakeForestLayout(padded, tokens.device()));
  const torch::Tensor targets = torch::randint(31, {300, kSteps}, torch::kInt64);
  std::vector<std::vector<torch::Tensor>> grads;
  std::vector<torch::Tensor> logits;
  for (bool fixed : {false, true}) {
    ModelOptions options;
    options.impl = LstmImpl::kDeviceForest;
    options.fixed_order = fixed;
    torch::manual_seed(3);
    CharLstm model(options);
    logits.push_back(model->forward_forest(f));
    (fixed ? CountCrossEntropy(logits.back(), f.node_of, targets)
           : NodeCrossEntropy(logits.back(), f.node_of, targets))
        .backward();
    grads.emplace_back();
    for (const torch::Tensor& p : model->parameters()) grads.back().push_back(p.grad().clone());
  }
  EXPECT_TRUE(logits[0].equal(logits[1]));
  for (size_t i = 0; i < grads[0].size(); ++i) {
    const float scale = grads[0][i].abs().max().item<float>();
    EXPECT_LT((grads[1][i] - grads[0][i]).abs().max().item<float>(), 1e-5 * scale + 1e-9) << i;
  }
}

}  // namespace
}  // namespace petname::model
