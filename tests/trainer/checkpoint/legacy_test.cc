// `petname convert-checkpoints` on a format-1 checkpoint as earlier releases wrote it (torch::save
// of the model, the Adam optimizer and the generator state, TorchScript archives): converted
// once, it continues exactly as the original would have, signed with the job's key where the
// operator's environment is set.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "common/file_util.h"
#include "common/sha256.h"
#include "tests/support/temp_dir.h"
#include "tests/trainer/checkpoint/adam_step.h"
#include "tests/trainer/checkpoint/sample_manifest.h"
#include "tests/trainer/cli/run_petname.h"
#include "trainer/checkpoint/checkpoint.h"
#include "trainer/checkpoint/store.h"

namespace petname::checkpoint {
namespace {

namespace fs = std::filesystem;

// Writes `dir` as an earlier petname did: TorchScript archives and a format-1 manifest.
void WriteFormat1(const std::string& dir, model::CharLstm& model, torch::optim::Adam& optimizer) {
  fs::create_directories(dir);
  torch::save(model, dir + "/model.pt");
  torch::save(optimizer, dir + "/optimizer.pt");
  torch::save(at::detail::getDefaultCPUGenerator().get_state(), dir + "/rng.pt");
  std::ofstream(dir + "/names.txt") << "rex\nspot\n";
  Manifest m = SampleManifest(1);
  m.format_version = 1;
  for (const char* name : {"model.pt", "optimizer.pt", "rng.pt", "names.txt"}) {
    ASSERT_TRUE(Sha256File(dir + "/" + name, &m.files[name]).ok());
  }
  ASSERT_TRUE(WriteFile(dir + "/manifest.json", ManifestToJson(m, "")).ok());
}

TEST(LegacyCheckpointTest, AConvertedCheckpointContinuesExactlyAsTheOriginal) {
  testing::TempDir tmp;
  const std::string root = tmp.Join("ckpt");
  const std::string dir = root + "/" + EpochDirName(1);
  torch::manual_seed(5);
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  AdamStep(a, opt_a);
  AdamStep(a, opt_a);
  WriteFormat1(dir, a, opt_a);
  const torch::Tensor draw = torch::rand({4});

  testing::RunResult r = testing::RunPetname({"generate", "--checkpoint", root});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("petname convert-checkpoints"), std::string::npos) << r.err;
  r = testing::RunPetname({"convert-checkpoints", "--checkpoint-dir", root});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "converted " + dir + "\n");
  EXPECT_FALSE(fs::exists(dir + "/model.pt"));

  Manifest m;
  ASSERT_TRUE(VerifyCheckpoint(dir, &m, "").ok());
  EXPECT_EQ(m.format_version, 2);
  EXPECT_EQ(m.epoch, 1);
  EXPECT_FALSE(m.is_signed);
  model::CharLstm b(model::ModelOptions{});
  torch::optim::Adam opt_b(b->parameters(), torch::optim::AdamOptions(1e-3));
  ASSERT_TRUE(LoadTrainingState(dir, m, b, opt_b).ok());
  EXPECT_TRUE(torch::equal(torch::rand({4}), draw)) << "the generator's state";
  ExpectTheSameNextStep(a, opt_a, b, opt_b);
  std::vector<std::string> names;
  ASSERT_TRUE(ReadTrainingNames(dir, m, &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"rex", "spot"}));

  r = testing::RunPetname({"convert-checkpoints", "--checkpoint-dir", root});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "petname: error: no checkpoint of format version 1 in " + root + "\n");
}

// In a job the operator runs, the converted manifest is signed with the job's secret.
TEST(LegacyCheckpointTest, ConvertedInAJobItIsSignedWithTheJobsKey) {
  testing::TempDir tmp;
  const std::string root = tmp.Join("ckpt");
  model::CharLstm a(model::ModelOptions{});
  torch::optim::Adam opt_a(a->parameters(), torch::optim::AdamOptions(1e-3));
  AdamStep(a, opt_a);
  WriteFormat1(root + "/" + EpochDirName(1), a, opt_a);
  const std::string secret = "0123456789abcdef";
  const testing::RunResult r =
      testing::RunPetname({"convert-checkpoints", "--checkpoint-dir", root},
                          {{"PETNAME_JOB_UID", "u1"}, {"PETNAME_RENDEZVOUS_SECRET", secret}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Manifest m;
  EXPECT_TRUE(VerifyCheckpoint(root + "/" + EpochDirName(1), &m, secret).ok());
  EXPECT_TRUE(m.is_signed);
}

}  // namespace
}  // namespace petname::checkpoint
