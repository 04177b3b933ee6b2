// Two runs pointed at one checkpoint directory (docs/contributing/faults.md): checkpoints record
// their owner and settings; a run resumes, cleans up and prunes only its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/sha256.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "trainer/checkpoint/owner.h"
#include "trainer/checkpoint/store.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Every file under `root` (staging directories included) and its sha256, but the kept rank logs
// under logs/: a refused run keeps its own output there, the line that says why it stopped.
std::map<std::string, std::string> Files(const std::string& root) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::directory_entry& e = *it;
    if (e.is_directory() && e.path() == fs::path(root) / "logs") {
      it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file()) continue;
    EXPECT_TRUE(Sha256File(e.path().string(), &files[e.path().string()]).ok());
  }
  return files;
}

TEST(OwnershipTest, AnotherRunRefusesToResumeAndLeavesTheFirstRunsFilesAlone) {
  TempDir dir;
  const std::string root = dir.Join("shared");
  ASSERT_EQ(RunPetname(With(SmallTrainArgs(2, root), {"--run-id", "a"})).exit_code, 0);
  // Run a is writing its third checkpoint right now.
  const fs::path staging = fs::path(root) / (".staging-epoch-000003-" +
                                             checkpoint::StagingTag({"run a", ""}) + "-Xy12Zw");
  fs::create_directory(staging);
  std::ofstream(staging / "model.safetensors") << "being written";
  const auto before = Files(root);

  RunResult r = RunPetname(With(SmallTrainArgs(3, root), {"--run-id", "b", "--resume"}));
  ExpectOneLineError(r, 1,
                     "the checkpoints in " + root +
                         " belong to run a, not to run b; give this "
                         "run its own checkpoint directory",
                     /*only_line=*/false);
  EXPECT_EQ(Files(root), before);

  r = RunPetname(With(SmallTrainArgs(3, root), {"--run-id", "a", "--resume"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming from " + root + "/epoch-000002"), std::string::npos) << r.err;
  ExpectCheckpoints(root, {"epoch-000001", "epoch-000002", "epoch-000003"});
}

// A run without --run-id takes the owner of the directory's newest checkpoint (so `train` then
// `train --resume` works as it always has), and must then bring the same settings.
TEST(OwnershipTest, ARunWithoutRunIdResumesOnlyWithTheSameSettings) {
  TempDir dir;
  const std::string root = dir.Join("shared");
  ASSERT_EQ(RunPetname(With(SmallTrainArgs(1, root), {"--run-id", "a"})).exit_code, 0);
  const auto before = Files(root);
  RunResult r = RunPetname(With(SmallTrainArgs(2, root), {"--resume", "--lr", "0.01"}));
  ExpectOneLineError(r, 1, "was trained with lr=0.001, this run has lr=0.01", false);
  EXPECT_EQ(Files(root), before);
  r = RunPetname(With(SmallTrainArgs(2, root), {"--resume"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  checkpoint::Manifest m;
  ASSERT_TRUE(checkpoint::VerifyCheckpoint(root + "/epoch-000002", &m, "").ok());
  EXPECT_EQ(m.owner.id, "run a");
}

TEST(OwnershipTest, AdoptCheckpointsTakesThemOver) {
  TempDir dir;
  const std::string root = dir.Join("shared");
  ASSERT_EQ(RunPetname(With(SmallTrainArgs(1, root), {"--run-id", "a"})).exit_code, 0);
  RunResult r = RunPetname(
      With(SmallTrainArgs(2, root), {"--run-id", "b", "--resume", "--adopt-checkpoints"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming from " + root + "/epoch-000001"), std::string::npos) << r.err;
  checkpoint::Manifest m;
  ASSERT_TRUE(checkpoint::VerifyCheckpoint(root + "/epoch-000002", &m, "").ok());
  EXPECT_EQ(m.owner.id, "run b");
}

TEST(OwnershipTest, BadRunIdIsAUsageError) {
  ExpectOneLineError(RunPetname(With(SmallTrainArgs(1, ""), {"--run-id", "a/b"})), 2,
                     "--run-id must be 1 to 63 characters");
}

}  // namespace
}  // namespace petname::testing
