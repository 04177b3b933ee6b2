// Faults of the checkpoint directory through the real binary (docs/contributing/faults.md): a
// volume that fills up while training, a directory that cannot be written at start-up, and a
// newest checkpoint truncated by a writer that was killed mid-write.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/exit_codes.h"
#include "common/file_util.h"
#include "tests/support/tmpfs.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Resuming(int epochs, const std::string& root) {
  std::vector<std::string> args = SmallTrainArgs(epochs, root);
  args.push_back("--resume");
  return args;
}

std::string Latest(const std::string& root) {
  std::string text;
  EXPECT_TRUE(ReadFile(root + "/latest", &text).ok());
  return text;
}

int64_t BytesUnder(const std::string& dir) {
  int64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir)) total += static_cast<int64_t>(e.file_size());
  return total;
}

// Allocates `bytes` of real space (not a sparse file) as the file `path`.
void Allocate(const std::string& path, int64_t bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  EXPECT_EQ(::posix_fallocate(fd, 0, bytes), 0) << path;
  ::close(fd);
}

// How often `needle` occurs in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Epoch 1 is saved; then the volume has room for half a checkpoint. Epoch 2's save fails with
// one warning and training goes on; the last epoch's save failing fails the run (its result
// would be lost). Nothing is half-written and `latest` stays on epoch 1. Once space returns, a
// resumed run starts from epoch 1 and saves epochs 2 and 3.
TEST(CheckpointFaultsTest, FullVolumeSkipsTheSaveKeepsTrainingAndResumesOnceSpaceReturns) {
  Tmpfs volume(64 << 20);
  if (volume.path().empty()) GTEST_SKIP() << volume.error();
  const std::string root = volume.path() + "/ckpt";
  RunResult r = RunPetname(SmallTrainArgs(1, root));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int64_t checkpoint_bytes = BytesUnder(root + "/epoch-000001");
  const std::string filler = volume.path() + "/filler";
  Allocate(filler, volume.FreeBytes() - checkpoint_bytes / 2);

  r = RunPetname(Resuming(3, root));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string warning = "petname: warning: checkpoint epoch 2 not saved (no_space, ENOSPC): ";
  ASSERT_EQ(Count(r.err, warning), 1u) << r.err;
  const std::string line = r.err.substr(
      r.err.find(warning), r.err.find('\n', r.err.find(warning)) - r.err.find(warning));
  EXPECT_NE(line.find("No space left on device; keeping " + root + "/epoch-000001"),
            std::string::npos)
      << line;
  EXPECT_NE(r.out.find("epoch 3/3"), std::string::npos) << r.out;  // training went on
  ExpectOneLineError(r, 1, "training finished, but checkpoint epoch 3 not saved (no_space, ENOSPC)",
                     /*only_line=*/false);
  ExpectCheckpoints(root, {"epoch-000001"});
  EXPECT_EQ(Latest(root), "epoch-000001\n");

  fs::remove(filler);
  r = RunPetname(Resuming(3, root));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming from " + root + "/epoch-000001"), std::string::npos) << r.err;
  ExpectCheckpoints(root, {"epoch-000001", "epoch-000002", "epoch-000003"});
  EXPECT_EQ(Latest(root), "epoch-000003\n");
}

// A read-only checkpoint volume fails the run before the data is loaded: one line naming the
// directory and the OS error, exit 73 (common/exit_codes.h), checkpoints untouched.
TEST(CheckpointFaultsTest, ReadOnlyDirFailsBeforeTrainingWithExit73) {
  Tmpfs volume(64 << 20);
  if (volume.path().empty()) GTEST_SKIP() << volume.error();
  const std::string root = volume.path() + "/ckpt";
  ASSERT_EQ(RunPetname(SmallTrainArgs(1, root)).exit_code, 0);
  ASSERT_TRUE(volume.SetReadOnly(true)) << volume.error();
  for (const auto& args : {SmallTrainArgs(2, root), Resuming(2, root)}) {
    RunResult r = RunPetname(args);
    ExpectOneLineError(r, kExitCheckpointDirUnusable,
                       "checkpoint directory unusable: cannot create a staging directory in " +
                           root + ": Read-only file system");
    EXPECT_EQ(r.out, "");
  }
  ExpectCheckpoints(root, {"epoch-000001"});
}

TEST(CheckpointFaultsTest, PathUnderAFileFailsBeforeTrainingWithExit73) {
  TempDir dir;
  std::ofstream(dir.Join("plain-file")) << "x";
  RunResult r = RunPetname(SmallTrainArgs(1, dir.Join("plain-file/ckpt")));
  ExpectOneLineError(r, kExitCheckpointDirUnusable,
                     "checkpoint directory unusable: cannot create checkpoint directory " +
                         dir.Join("plain-file/ckpt") + ": Not a directory");
}

// A checkpoint directory that was deleted is not an error: it is made again and training
// starts from scratch, saying so.
TEST(CheckpointFaultsTest, VanishedDirIsCreatedAndTrainingStartsFromScratch) {
  TempDir dir;
  const std::string root = dir.Join("gone/ckpt");
  RunResult r = RunPetname(Resuming(1, root));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no checkpoint in " + root + "; starting from scratch"), std::string::npos)
      << r.err;
  ExpectCheckpoints(root, {"epoch-000001"});
}

// What a writer killed mid-checkpoint leaves: a staging directory with a partial file (and,
// had it been killed while its files were being replaced, a truncated newest checkpoint). The
// next start skips the damaged one with one warning, resumes from the one before and removes
// the staging directory.
TEST(CheckpointFaultsTest, TruncatedNewestAndAKilledWritersStagingAreSkipped) {
  TempDir dir;
  const std::string root = dir.Join("ckpt");
  ASSERT_EQ(RunPetname(SmallTrainArgs(2, root)).exit_code, 0);
  const fs::path model = root + "/epoch-000002/model.safetensors";
  fs::resize_file(model, fs::file_size(model) / 2);
  fs::create_directory(root + "/.staging-epoch-000003-Ab12Cd");
  std::ofstream(root + "/.staging-epoch-000003-Ab12Cd/model.safetensors") << "partial";

  RunResult r = RunPetname(Resuming(3, root));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.err, "warning"), 1u) << r.err;
  EXPECT_NE(r.err.find("petname: warning: skipping damaged checkpoint: " + root +
                       "/epoch-000002: checksum mismatch for model.safetensors"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("resuming from " + root + "/epoch-000001"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("epoch 2/3"), std::string::npos) << r.out;
  ExpectCheckpoints(root, {"epoch-000001", "epoch-000002", "epoch-000003"});
}

// A SIGTERM checkpoint in the middle of epoch 3 is saved as epoch 2 and replaces epoch-000002:
// the writer moves the old one aside (.replaced), then renames the new one in. Killed between
// the two renames, it leaves no epoch-000002 at all. The next start renames the moved-aside
// copy back (it used to delete it as stale staging) and resumes from it.
TEST(CheckpointFaultsTest, CheckpointMovedAsideByAKilledReplacementIsResumedFrom) {
  TempDir dir;
  const std::string root = dir.Join("ckpt");
  ASSERT_EQ(RunPetname(SmallTrainArgs(2, root)).exit_code, 0);
  fs::rename(root + "/epoch-000002", root + "/.staging-epoch-000002-Ab12Cd.replaced");
  fs::create_directory(root + "/.staging-epoch-000002-Ab12Cd");
  std::ofstream(root + "/.staging-epoch-000002-Ab12Cd/model.safetensors")
      << "complete but unpublished";

  RunResult r = RunPetname(Resuming(3, root));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.err, "warning"), 0u) << r.err;
  EXPECT_NE(r.err.find("resuming from " + root + "/epoch-000002 (epoch 2"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("epoch 3/3"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("epoch 2/3"), std::string::npos) << r.out;
  ExpectCheckpoints(root, {"epoch-000001", "epoch-000002", "epoch-000003"});
  EXPECT_EQ(Latest(root), "epoch-000003\n");
}

}  // namespace
}  // namespace petname::testing
