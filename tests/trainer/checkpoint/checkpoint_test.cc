#include "trainer/checkpoint/checkpoint.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"
#include "tests/trainer/checkpoint/adam_step.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "trainer/checkpoint/adam_state.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

// The Adam state of `model`'s parameter `i`.
const torch::optim::AdamParamState& StateOf(torch::optim::Adam& adam, model::CharLstm& model,
                                            size_t i) {
  return static_cast<const torch::optim::AdamParamState&>(
      *adam.state().at(AdamStateKey(model->parameters()[i])));
}

// Saves, loads into another model and optimizer: the same outputs, the same Adam state, the
// same generator, and the next step gives the same parameters, bit for bit.
TEST(CheckpointTest, SaveLoadRoundTripContinuesIdentically) {
  testing::TempDir dir;
  torch::manual_seed(1);
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  AdamStep(a, opt_a);
  AdamStep(a, opt_a);
  Manifest m = SampleManifest(1);
  ASSERT_TRUE(SaveCheckpoint(dir.path(), m, 3, a, opt_a, {"rex", "spot"}, "").ok());
  const torch::Tensor draw_a = torch::rand({4});

  torch::manual_seed(2);
  model::CharLstm b(model::ModelOptions{});
  torch::optim::Adam opt_b(b->parameters(), torch::optim::AdamOptions(1e-3));
  std::string ckpt = dir.Join(EpochDirName(1));
  ASSERT_TRUE(VerifyCheckpoint(ckpt, &m, "").ok());
  ASSERT_TRUE(LoadTrainingState(ckpt, m, b, opt_b).ok());
  EXPECT_TRUE(torch::equal(torch::rand({4}), draw_a)) << "the generator's state";
  for (size_t i = 0; i < a->parameters().size(); ++i) {
    EXPECT_EQ(StateOf(opt_b, b, i).step(), 2);
    EXPECT_TRUE(torch::equal(StateOf(opt_a, a, i).exp_avg(), StateOf(opt_b, b, i).exp_avg()));
    EXPECT_TRUE(torch::equal(StateOf(opt_a, a, i).exp_avg_sq(), StateOf(opt_b, b, i).exp_avg_sq()));
  }
  ExpectTheSameNextStep(a, opt_a, b, opt_b);
  std::vector<std::string> names;
  ASSERT_TRUE(ReadTrainingNames(ckpt, m, &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"rex", "spot"}));
}

// An optimizer that has not stepped yet is saved as the state Adam starts from: loaded, the
// next step is the same as a fresh optimizer's.
TEST(CheckpointTest, AnOptimizerWithoutStateRoundTrips) {
  testing::TempDir dir;
  torch::manual_seed(3);
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  Manifest m = SampleManifest(1);
  ASSERT_TRUE(SaveCheckpoint(dir.path(), m, 3, a, opt_a, {}, "").ok());
  model::CharLstm b(model::ModelOptions{});
  torch::optim::Adam opt_b(b->parameters(), torch::optim::AdamOptions(1e-3));
  const std::string ckpt = dir.Join(EpochDirName(1));
  ASSERT_TRUE(VerifyCheckpoint(ckpt, &m, "").ok());
  ASSERT_TRUE(LoadTrainingState(ckpt, m, b, opt_b).ok());
  ExpectTheSameNextStep(a, opt_a, b, opt_b);
}

// A checkpoint of one model, loaded into a model of another hidden size: corruption naming the
// file, the parameter and both shapes, and the model is left as it was.
TEST(CheckpointTest, ModelOfAnotherShapeIsCorruptionNamingTheParameter) {
  testing::TempDir dir;
  model::ModelOptions small;
  small.hidden_size = 64;
  model::CharLstm other(small);
  torch::optim::Adam opt(other->parameters(), torch::optim::AdamOptions(1e-3));
  Manifest m = SampleManifest(1);
  ASSERT_TRUE(SaveCheckpoint(dir.path(), m, 3, other, opt, {}, "").ok());
  const std::string ckpt = dir.Join(EpochDirName(1));
  ASSERT_TRUE(VerifyCheckpoint(ckpt, &m, "").ok());
  model::CharLstm model(model::ModelOptions{});
  const torch::Tensor before = model->parameters()[0].clone();
  const Status st = LoadModel(ckpt, m, model);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_EQ(st.message(), ckpt +
                              "/model.safetensors: tensor lstm.weight_ih_l0 is F32 [256, 31], "
                              "expected F32 [512, 31]");
  EXPECT_TRUE(torch::equal(model->parameters()[0], before));
}

// A file swapped after the checkpoint was verified is refused: the bytes parsed are the bytes
// checksummed. A manifest that lists no model file is damage too.
TEST(CheckpointTest, AFileSwappedAfterVerificationOrMissingIsCorruption) {
  testing::TempDir dir;
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt(a->parameters(), torch::optim::AdamOptions(1e-3));
  Manifest m = SampleManifest(1);
  ASSERT_TRUE(SaveCheckpoint(dir.path(), m, 3, a, opt, {"rex"}, "").ok());
  const std::string ckpt = dir.Join(EpochDirName(1));
  ASSERT_TRUE(VerifyCheckpoint(ckpt, &m, "").ok());
  std::ofstream(ckpt + "/names.txt", std::ios::app) << "planted\n";
  std::vector<std::string> names;
  EXPECT_EQ(ReadTrainingNames(ckpt, m, &names).message(), ckpt + "/names.txt: checksum mismatch");
  std::ofstream(ckpt + "/model.safetensors", std::ios::binary | std::ios::app) << "x";
  model::CharLstm b(model::ModelOptions{});
  EXPECT_EQ(LoadModel(ckpt, m, b).message(), ckpt + "/model.safetensors: checksum mismatch");
  m.files.erase("model.safetensors");
  EXPECT_EQ(LoadModel(ckpt, m, b).message(), ckpt + ": manifest.json lists no model.safetensors");
}

}  // namespace
}  // namespace petname::checkpoint
