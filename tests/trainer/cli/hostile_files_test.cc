// Files the trainer did not write, planted in a checkpoint root, through the real binary: a
// FIFO or a symlink to /dev/zero as manifest.json, as a tensor file or as `latest`, a symlink at
// the job directory's path. Each run ends (the harness kills a run that hangs, and the test then
// fails on its exit status); a hostile epoch is skipped with a warning when the newest valid
// checkpoint is looked for, refused with one error line when it is the one asked for. Also:
// SIGTERM while the checkpoints are read ends the process with 143, and checkpoints are private
// (0700 directories, 0600 files) even under umask 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/exit_codes.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/cli/trained_checkpoint.h"
#include "tests/trainer/launch/subprocess.h"
#include "tests/trainer/launch/syscall_hold.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

// Generous: a run that has not ended by then is hanging.
constexpr std::chrono::seconds kLimit(300);

struct Ended {
  int code = -1;  // -1: killed at kLimit
  std::string output;
};

Ended RunUntilEnd(std::vector<std::string> args) {
  args.insert(args.begin(), PetnameBin());
  Subprocess p(args, {});
  Ended e;
  e.code = p.Wait(kLimit);
  e.output = p.Output();
  return e;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

mode_t ModeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class HostileCheckpointFilesTest : public TrainedCheckpointTest {
 protected:
  // Copies epoch-000001 of `root` as `epoch` and replaces its file `file` by a FIFO, or by a
  // symlink to /dev/zero when `fifo` is false.
  static std::string Plant(const std::string& root, const std::string& epoch,
                           const std::string& file, bool fifo) {
    const std::string dir = root + "/" + epoch;
    fs::copy(root + "/epoch-000001", dir, fs::copy_options::recursive);
    const std::string path = dir + "/" + file;
    fs::remove(path);
    if (fifo) {
      EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    } else {
      fs::create_symlink("/dev/zero", path);
    }
    return dir;
  }
};

// The newest epoch's manifest (or model.safetensors) is a FIFO or a symlink to /dev/zero: resume
// skips it with one warning and continues from epoch 1; generate, asked for that epoch, refuses it.
TEST_F(HostileCheckpointFilesTest, HostileNewestEpochIsSkippedOnResumeAndRefusedByGenerate) {
  int n = 0;
  for (const char* file : {"manifest.json", "model.safetensors"}) {
    for (bool fifo : {true, false}) {
      SCOPED_TRACE(std::string(file) + (fifo ? " as a FIFO" : " as a symlink to /dev/zero"));
      const std::string root = CopyOfTrained("case-" + std::to_string(n++));
      const std::string bad = Plant(root, "epoch-000002", file, fifo);
      const std::string refusal = fifo ? " is not a regular file (a FIFO, device or socket)"
                                       : " is a symbolic link, not a file";

      Ended g = RunUntilEnd({"generate", "--checkpoint", bad});
      EXPECT_EQ(g.code, 1) << g.output;
      EXPECT_EQ(g.output, "petname: error: checkpoint file " + bad + "/" + file + refusal + "\n");

      std::vector<std::string> args = Resume(root, 3);
      Ended t = RunUntilEnd(args);
      EXPECT_EQ(t.code, 0) << t.output;
      EXPECT_EQ(Count(t.output,
                      "skipping damaged checkpoint: checkpoint file " + bad + "/" + file + refusal),
                1u)
          << t.output;
      EXPECT_NE(t.output.find("resuming from " + root + "/epoch-000001"), std::string::npos)
          << t.output;
      ExpectCheckpoints(root, {"epoch-000001", "epoch-000002", "epoch-000003"});
    }
  }
}

// A hostile manifest in an older epoch than the newest valid one: resume does not need it, and
// every commit (which reads each epoch's manifest to find its owner's) leaves it alone.
TEST_F(HostileCheckpointFilesTest, HostileOlderEpochNeitherHangsResumeNorCommits) {
  for (bool fifo : {true, false}) {
    SCOPED_TRACE(fifo ? "FIFO" : "symlink to /dev/zero");
    const std::string root = CopyOfTrained(fifo ? "fifo" : "zero");
    Plant(root, "epoch-000000", "manifest.json", fifo);
    Ended t = RunUntilEnd(Resume(root, 3));
    EXPECT_EQ(t.code, 0) << t.output;
    EXPECT_NE(t.output.find("resuming from " + root + "/epoch-000001"), std::string::npos)
        << t.output;
    EXPECT_TRUE(fs::exists(root + "/epoch-000003/manifest.json"));
    EXPECT_EQ(fs::symlink_status(root + "/epoch-000000/manifest.json").type(),
              fifo ? fs::file_type::fifo : fs::file_type::symlink);
    Ended g = RunUntilEnd({"generate", "--checkpoint", root, "--count", "3"});
    EXPECT_EQ(g.code, 0) << g.output;
  }
}

// `latest` is written, never read: a symlink planted there is replaced by a regular file (the
// rename replaces the link), and what it pointed to is untouched.
TEST_F(HostileCheckpointFilesTest, SymlinkAsLatestIsReplacedNotFollowed) {
  const std::string root = CopyOfTrained("latest");
  fs::remove(root + "/latest");
  const std::string outside = dir_.Join("outside.txt");
  std::ofstream(outside) << "untouched\n";
  fs::create_symlink("/dev/zero", root + "/latest");
  Ended g = RunUntilEnd({"generate", "--checkpoint", root, "--count", "3"});
  EXPECT_EQ(g.code, 0) << g.output;
  Ended t = RunUntilEnd(Resume(root, 2));
  EXPECT_EQ(t.code, 0) << t.output;
  EXPECT_EQ(fs::symlink_status(root + "/latest").type(), fs::file_type::regular);
  fs::remove(root + "/latest");
  fs::create_symlink(outside, root + "/latest");
  t = RunUntilEnd(Resume(root, 3));
  EXPECT_EQ(t.code, 0) << t.output;
  EXPECT_EQ(fs::symlink_status(root + "/latest").type(), fs::file_type::regular);
  std::ifstream in(outside);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "untouched");
}

// SIGTERM while `train --resume` reads a checkpoint root of hostile epochs ends it with 143 and
// the one stop line. The process is held (SyscallHold) as it opens a file of a hostile epoch: it
// is then reading the checkpoints, before training, and the signal lands there however fast the
// machine is.
TEST_F(HostileCheckpointFilesTest, SigtermWhileResumeReadsCheckpointsExits143) {
  const std::string root = CopyOfTrained("many");
  for (const char* epoch : {"epoch-000005", "epoch-000006", "epoch-000007"}) {
    Plant(root, epoch, "manifest.json", /*fifo=*/true);
  }
  std::vector<std::string> args = Resume(root, 3);
  args.insert(args.begin(), PetnameBin());
  Subprocess p(args, {}, Subprocess::Gated{});
  SyscallHold hold(&p);
  const std::string hostile = root + "/epoch-00000";
  ASSERT_TRUE(hold.UntilOpen([&](const std::string& path, int) {
    return path.rfind(hostile, 0) == 0 && path.rfind(root + "/epoch-000001", 0) != 0;
  })) << hold.error()
      << "\n"
      << p.Output();
  ASSERT_EQ(::kill(p.pid(), SIGTERM), 0);
  hold.Release();
  EXPECT_EQ(p.Wait(kLimit), 143) << p.Output();
  const std::string out = p.Output();
  const std::string stopped = "petname: error: stopped by SIGTERM before training started\n";
  EXPECT_EQ(Count(out, stopped), 1u) << out;
  ASSERT_GE(out.size(), stopped.size());
  EXPECT_EQ(out.substr(out.size() - stopped.size()), stopped) << "the last line";
  EXPECT_FALSE(fs::exists(root + "/epoch-000002"));
}

// Under umask 0 every directory the trainer creates is 0700 and every file 0600: a checkpoint
// (with names.txt, the training names) is private on a claim other users share.
TEST_F(HostileCheckpointFilesTest, CheckpointsArePrivateEvenUnderUmask0) {
  const mode_t old = ::umask(0);
  const std::string root = dir_.Join("claim/ns/job");
  RunResult r = RunPetname(SmallTrainArgs(2, root));
  ::umask(old);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ModeOf(dir_.Join("claim")), 0700u);
  EXPECT_EQ(ModeOf(root), 0700u);
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    SCOPED_TRACE(e.path().string());
    // The exported model is for others to read (0644) where the directory lets them.
    const bool exported = e.path() == fs::path(root) / "model.safetensors";
    EXPECT_EQ(ModeOf(e.path()), e.is_directory() ? 0700u : exported ? 0644u : 0600u);
    files += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_TRUE(fs::exists(root + "/epoch-000002/names.txt"));
  EXPECT_GE(files, 12);
}

// A symlink planted at the job directory's path is refused with one line naming it; nothing is
// written where it points.
TEST_F(HostileCheckpointFilesTest, SymlinkAtTheJobDirectoryIsRefused) {
  const std::string target = dir_.Join("elsewhere");
  fs::create_directory(target);
  const std::string job = dir_.Join("job");
  fs::create_directory_symlink(target, job);
  RunResult r = RunPetname(SmallTrainArgs(1, job));
  ExpectOneLineError(
      r, kExitCheckpointDirUnusable,
      "checkpoint directory " + job + " is a symbolic link; refusing to write through it");
  EXPECT_TRUE(fs::is_empty(target));
}

}  // namespace
}  // namespace petname::testing
