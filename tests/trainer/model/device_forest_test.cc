// The device forest (built with tensor ops, padded to fixed capacities) against the host
// forest and the plain definitions, on the CPU.
#include "trainer/model/device_forest.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/trainer/model/windows.h"
#include "trainer/model/model.h"
#include "trainer/model/prefix_forest.h"

namespace petname::model {
namespace {

using testing::kSteps;
using testing::Windows;

std::vector<int64_t> HostLevelSizes(const torch::Tensor& tokens) {
  const PrefixForest f =
      BuildPrefixForest(tokens.contiguous().data_ptr<int64_t>(), tokens.size(0), tokens.size(1));
  std::vector<int64_t> sizes;
  for (int64_t t = 0; t < f.steps; ++t)
    sizes.push_back(f.level_offsets[t + 1] - f.level_offsets[t]);
  return sizes;
}

// Every (row, step) reaches, by following parents, exactly its own prefix.
void ExpectSpellsEveryPrefix(const DeviceForest& f, const torch::Tensor& tokens) {
  const auto node_of = f.node_of.accessor<int64_t, 1>();
  const auto parent = f.parent.accessor<int64_t, 1>();
  const auto token = f.token.accessor<int64_t, 1>();
  const auto x = tokens.accessor<int64_t, 2>();
  for (int64_t b = 0; b < tokens.size(0); ++b) {
    int64_t node = node_of[b * kSteps + kSteps - 1];
    for (int64_t t = kSteps - 1; t >= 0; --t) {
      ASSERT_EQ(node, node_of[b * kSteps + t]) << b << " " << t;
      ASSERT_GE(node, f.offset[t]);
      ASSERT_LT(node, f.offset[t] + f.capacity[t]);
      ASSERT_EQ(token[node], x[b][t]);
      if (t > 0) node = f.offset[t - 1] + parent[node];
    }
  }
}

TEST(DeviceForestTest, ExactCapacitiesAreTheHostForestsLevels) {
  const torch::Tensor tokens = Windows(300, 1);
  const std::vector<int64_t> sizes = ExactCapacity(tokens);
  EXPECT_EQ(sizes, HostLevelSizes(tokens));
  const DeviceForest f = BuildDeviceForest(tokens, MakeForestLayout(sizes, tokens.device()));
  EXPECT_FALSE(f.overflow.item<bool>());
  EXPECT_EQ(f.padded_size(), HostLevelSizes(tokens).back() + f.offset.back());
  ExpectSpellsEveryPrefix(f, tokens);
}

TEST(DeviceForestTest, PaddingChangesNeitherStructureNorLogits) {
  const torch::Tensor tokens = Windows(200, 2);
  std::vector<int64_t> padded = ExactCapacity(tokens);
  for (int64_t& c : padded) c = std::min<int64_t>(c + 13, tokens.size(0));
  const DeviceForest exact =
      BuildDeviceForest(tokens, MakeForestLayout(ExactCapacity(tokens), tokens.device()));
  const DeviceForest wide = BuildDeviceForest(tokens, MakeForestLayout(padded, tokens.device()));
  EXPECT_FALSE(wide.overflow.item<bool>());
  ExpectSpellsEveryPrefix(wide, tokens);

  ModelOptions options;
  options.impl = LstmImpl::kDeviceForest;
  torch::manual_seed(3);
  CharLstm model(options);
  const torch::Tensor a = model->forward_forest(exact).index_select(0, exact.node_of);
  const torch::Tensor b = model->forward_forest(wide).index_select(0, wide.node_of);
  EXPECT_LT((a - b).abs().max().item<float>(), 1e-6);
}

TEST(DeviceForestTest, TooSmallACapacityRaisesTheOverflowFlag) {
  const torch::Tensor tokens = Windows(100, 4);
  std::vector<int64_t> small = ExactCapacity(tokens);
  small.back() -= 1;
  EXPECT_TRUE(
      BuildDeviceForest(tokens, MakeForestLayout(small, tokens.device())).overflow.item<bool>());
}

TEST(DeviceForestTest, NodeCrossEntropyIsTheMeanOverRowsAndSteps) {
  const torch::Tensor tokens = Windows(64, 5);
  const DeviceForest f =
      BuildDeviceForest(tokens, MakeForestLayout(ExactCapacity(tokens), tokens.device()));
  torch::manual_seed(6);
  const torch::Tensor node_logits = torch::randn({f.padded_size(), 31});
  const torch::Tensor targets = torch::randint(31, {64, kSteps}, torch::kInt64);
  const torch::Tensor want = torch::nn::functional::cross_entropy(
      node_logits.index_select(0, f.node_of), targets.reshape({-1}));
  EXPECT_NEAR(NodeCrossEntropy(node_logits, f.node_of, targets).item<float>(), want.item<float>(),
              1e-6);
}

TEST(DeviceForestTest, HeadroomIsBoundedByTheBatch) {
  EXPECT_EQ(CapacityWithHeadroom({1, 100, 4000}, 4096), (std::vector<int64_t>{80, 176, 4096}));
}

}  // namespace
}  // namespace petname::model
