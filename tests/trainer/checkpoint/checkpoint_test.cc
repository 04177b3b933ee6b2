#include "trainer/checkpoint/checkpoint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/trainer/checkpoint/sample_manifest.h"
#include "tests/trainer/cli/run_petname.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

// One Adam step on a fixed batch; returns the loss.
double Step(model::CharLstm& model, torch::optim::Adam& optimizer) {
  torch::Tensor x = torch::arange(16, torch::kInt64).remainder(31).reshape({2, 8});
  optimizer.zero_grad();
  torch::Tensor loss = model->forward(x).pow(2).mean();
  loss.backward();
  optimizer.step();
  return loss.item<double>();
}

TEST(CheckpointTest, SaveLoadRoundTripContinuesIdentically) {
  testing::TempDir dir;
  torch::manual_seed(1);
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  Step(a, opt_a);
  Manifest m = SampleManifest(1);
  ASSERT_TRUE(SaveCheckpoint(dir.path(), m, 3, a, opt_a, {"rex", "spot"}).ok());

  torch::manual_seed(2);
  model::CharLstm b(model::ModelOptions{});
  torch::optim::Adam opt_b(b->parameters(), torch::optim::AdamOptions(1e-3));
  std::string ckpt = dir.Join(EpochDirName(1));
  ASSERT_TRUE(VerifyCheckpoint(ckpt, &m).ok());
  ASSERT_TRUE(LoadTrainingState(ckpt, b, opt_b).ok());
  EXPECT_EQ(Step(a, opt_a), Step(b, opt_b));
  for (size_t i = 0; i < a->parameters().size(); ++i) {
    EXPECT_TRUE(torch::equal(a->parameters()[i], b->parameters()[i])) << i;
  }
  std::vector<std::string> names;
  ASSERT_TRUE(ReadTrainingNames(ckpt, &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"rex", "spot"}));
}

TEST(CheckpointTest, DamagedModelFileIsCorruption) {
  testing::TempDir dir;
  std::ofstream(dir.Join("model.pt")) << "not a model";
  model::CharLstm m(model::ModelOptions{});
  EXPECT_EQ(LoadModel(dir.path(), m).code(), Status::Code::kCorruption);
}

// torch::load would put a tensor of any shape into a parameter; the shapes are checked.
TEST(CheckpointTest, ModelOfAnotherShapeIsCorruptionNamingTheParameter) {
  testing::TempDir dir;
  model::ModelOptions small;
  small.hidden_size = 64;
  model::CharLstm other(small);
  torch::save(other, dir.Join("model.pt"));
  model::CharLstm m(model::ModelOptions{});
  const Status st = LoadModel(dir.path(), m);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("parameter lstm.weight_ih_l0 is [256, 31] float, expected [512, 31] "
                              "float"),
            std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace petname::checkpoint
