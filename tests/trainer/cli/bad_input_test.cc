// Every bad input of the issue, through the real binary: one line on stderr, exit 2 (usage)
// or 1 (runtime), no crash, no partial checkpoint, earlier checkpoints intact.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/test_paths.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "trainer/checkpoint/store.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.Join(name), std::ios::binary) << text;
  return dir.Join(name);
}

std::vector<std::string> TrainOn(const std::string& data) {
  return {"train", "--data", data, "--epochs", "1", "--threads", "1"};
}

TEST(BadInputTest, DataFiles) {
  TempDir dir;
  ExpectOneLineError(RunPetname(TrainOn(dir.Join("missing.csv"))), 1, "does not exist");
  ExpectOneLineError(RunPetname(TrainOn(dir.path())), 2, "is a directory");
  ExpectOneLineError(RunPetname(TrainOn(WriteFile(dir, "empty.csv", ""))), 2, "is empty");
  ExpectOneLineError(RunPetname(TrainOn(WriteFile(dir, "junk.txt", "42\n!!\n\n"))), 2,
                     "no usable names");
  ExpectOneLineError(
      RunPetname(TrainOn(WriteFile(dir, "open.csv", "Animal's Name,x\nRex,1\n\"Spot,2\nFido,3\n"))),
      1, "line 3: quoted field is not terminated");
  std::vector<std::string> args = TrainOn(TestData());
  args.insert(args.end(), {"--column", "Pet Name"});
  ExpectOneLineError(RunPetname(args), 2, "no column named \"Pet Name\"");
}

// The data file is untrusted: only a regular file (symlinks followed) of at most
// --max-data-bytes is read. A FIFO used to block the trainer forever and /dev/zero to read
// until memory ran out.
TEST(BadInputTest, DataThatIsNotARegularFileOrTooLarge) {
  TempDir dir;
  const std::string fifo = dir.Join("names.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectOneLineError(RunPetname(TrainOn(fifo)), 2,
                     "data path " + fifo + " is not a regular file (a FIFO, device or socket)");
  ExpectOneLineError(RunPetname(TrainOn("/dev/zero")), 2,
                     "data path /dev/zero is not a regular file");
  fs::create_symlink("/dev/zero", dir.Join("zero.csv"));
  ExpectOneLineError(RunPetname(TrainOn(dir.Join("zero.csv"))), 2,
                     "data path " + dir.Join("zero.csv") + " is not a regular file");
  fs::create_directory(dir.Join("names.csv"));
  ExpectOneLineError(RunPetname(TrainOn(dir.Join("names.csv"))), 2,
                     "data path " + dir.Join("names.csv") + " is a directory, not a file");
  std::vector<std::string> capped = TrainOn(TestData());
  capped.insert(capped.end(), {"--max-data-bytes", "1000"});
  const std::string size = std::to_string(fs::file_size(TestData()));
  ExpectOneLineError(RunPetname(capped), 2,
                     std::string("data path ") + TestData() + " has " + size +
                         " bytes, more than --max-data-bytes 1000");
  capped.back() = "0";
  ExpectOneLineError(RunPetname(capped), 2, "--max-data-bytes must be positive");
}

// Run without the capabilities that read files whatever their mode (root has them), so that the
// file's mode stops it as it stops any user.
TEST(BadInputTest, UnreadableFile) {
  TempDir dir;
  std::string path = WriteFile(dir, "secret.txt", "rex\n");
  fs::permissions(path, fs::perms::none);
  ExpectOneLineError(RunPetnameUnprivileged(TrainOn(path)), 1, "cannot read");
}

TEST(BadInputTest, NumbersAndFlags) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--epochs", "0"}, "--epochs"},
      {{"--epochs=-2"}, "--epochs"},
      {{"--batch-size", "0"}, "--batch-size"},
      {{"--batch-size=-5"}, "--batch-size"},
      {{"--lr", "0"}, "--lr"},
      {{"--lr=-0.1"}, "--lr"},
      {{"--lr-schedule", "linear"}, "linear"},
      {{"--warmup-steps=-1"}, "--warmup-steps"},
      {{"--epochs", "many"}, "--epochs"},
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"--device", "tpu"}, "tpu"},
      {{"--lstm-impl", "gru"}, "gru"},
      {{"--device", "cuda", "--lstm-impl", "host-forest"}, "host-forest runs on the CPU only"},
      {{"--resume"}, "--checkpoint-dir"},
  };
  for (const auto& [extra, needle] : cases) {
    std::vector<std::string> args = TrainOn(TestData());
    args.insert(args.end(), extra.begin(), extra.end());
    SCOPED_TRACE(extra[0]);
    ExpectOneLineError(RunPetname(args), 2, needle);
  }
  ExpectOneLineError(RunPetname({"fly"}), 2, "subcommand");
  ExpectOneLineError(RunPetname({}), 2, "subcommand");
}

// This machine has no GPU (CI never has one): --device cuda is a runtime error naming why,
// whether the build lacks CUDA or the machine lacks a GPU.
TEST(BadInputTest, CudaWithoutAGpu) {
  std::vector<std::string> args = TrainOn(TestData());
  args.insert(args.end(), {"--max-names", "50", "--device", "cuda"});
  const RunResult r = RunPetname(args);
  ExpectOneLineError(r, 1, "--device cuda: ", /*only_line=*/false);
  EXPECT_TRUE(r.err.find("no CUDA GPU is visible") != std::string::npos ||
              r.err.find("this build has no CUDA") != std::string::npos)
      << r.err;
}

TEST(BadInputTest, GenerateNumbers) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--count", "0"}, "--count"},
      {{"--count=-3"}, "--count"},
      {{"--temperature", "0"}, "--temperature"},
      {{"--temperature=-1"}, "--temperature"},
      {{"--prefix", "R2"}, "--prefix"},
  };
  for (const auto& [extra, needle] : cases) {
    std::vector<std::string> args = {"generate", "--checkpoint", dir.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    SCOPED_TRACE(extra[0]);
    ExpectOneLineError(RunPetname(args), 2, needle);
  }
  ExpectOneLineError(RunPetname({"generate"}), 2, "--checkpoint");
  ExpectOneLineError(RunPetname({"generate", "--checkpoint", dir.Join("nope")}), 1,
                     "does not exist");
  ExpectOneLineError(RunPetname({"generate", "--checkpoint", dir.path()}), 1, "no checkpoint");
}

// One trained run with two checkpoints, shared by the checkpoint cases below.
class CheckpointDamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("ckpt");
    RunResult r = RunPetname(SmallTrainArgs(2, root_));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectCheckpoints(root_, {"epoch-000001", "epoch-000002"});
  }

  TempDir dir_;
  std::string root_;
};

TEST_F(CheckpointDamageTest, CorruptNewestIsReportedAndThePreviousUsed) {
  std::ofstream(root_ + "/epoch-000002/model.safetensors", std::ios::binary | std::ios::app)
      << "garbage";
  std::vector<std::string> args = SmallTrainArgs(3, root_);
  args.push_back("--resume");
  RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: skipping damaged checkpoint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checksum mismatch for model.safetensors"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resuming from " + root_ + "/epoch-000001"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("epoch 2/3"), std::string::npos);
  ExpectCheckpoints(root_, {"epoch-000001", "epoch-000002", "epoch-000003"});
}

TEST_F(CheckpointDamageTest, AllTruncatedIsAnError) {
  fs::resize_file(root_ + "/epoch-000001/optimizer.safetensors", 5);
  fs::resize_file(root_ + "/epoch-000002/manifest.json", 20);
  std::vector<std::string> args = SmallTrainArgs(3, root_);
  args.push_back("--resume");
  RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("petname: error: no valid checkpoint"), std::string::npos) << r.err;
  EXPECT_EQ(r.signal, 0);
  ExpectOneLineError(RunPetname({"generate", "--checkpoint", root_ + "/epoch-000002"}), 1,
                     "manifest.json");
}

TEST_F(CheckpointDamageTest, OtherFormatVersionIsRefused) {
  std::string path = root_ + "/epoch-000002/manifest.json";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"format_version\": 2"), 19, "\"format_version\": 99");
  std::ofstream(path, std::ios::trunc) << text;
  std::vector<std::string> args = SmallTrainArgs(3, root_);
  args.push_back("--resume");
  ExpectOneLineError(RunPetname(args), 1, "format version 99 is not supported", false);
  ExpectOneLineError(RunPetname({"generate", "--checkpoint", root_}), 1, "format version 99");
  EXPECT_EQ(checkpoint::ListCheckpoints(root_),
            (std::vector<std::string>{"epoch-000001", "epoch-000002"}));
}

TEST_F(CheckpointDamageTest, DifferentDataIsRefusedUnlessForced) {
  std::vector<std::string> args = SmallTrainArgs(3, root_);
  args[4] = "150";  // --max-names: other data, other fingerprint
  args.push_back("--resume");
  ExpectOneLineError(RunPetname(args), 1, "different data", false);
  ExpectCheckpoints(root_, {"epoch-000001", "epoch-000002"});
  args.push_back("--force-resume");
  RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectCheckpoints(root_, {"epoch-000001", "epoch-000002", "epoch-000003"});
}

// `petname logs`: usage errors exit 2, a log that is not there exits 1, each with one line.
TEST(BadInputTest, LogsCommand) {
  TempDir dir;
  ExpectOneLineError(RunPetname({"logs"}), 2, "needs --checkpoint-dir or --log-dir");
  ExpectOneLineError(RunPetname({"logs", "--checkpoint-dir", dir.path(), "--attempt", "-1"}), 2,
                     "--attempt");
  ExpectOneLineError(RunPetname({"logs", "--checkpoint-dir", dir.path(), "--rank", "x"}), 2,
                     "--rank");
  ExpectOneLineError(RunPetname({"logs", "--checkpoint-dir", dir.Join("missing")}), 1,
                     "no rank logs under " + dir.Join("missing") + "/logs");
  fs::create_directories(dir.Join("logs/attempt-0"));
  ExpectOneLineError(RunPetname({"logs", "--checkpoint-dir", dir.path(), "--attempt", "3"}), 1,
                     "no attempt 3 under " + dir.Join("logs"));
  ExpectOneLineError(RunPetname({"logs", "--log-dir", dir.Join("logs"), "--rank", "1"}), 1,
                     "no log of rank 1 in attempt 0 under " + dir.Join("logs"));
  ::setenv("PETNAME_ATTEMPT", "-1", 1);
  ExpectOneLineError(RunPetname({"train", "--data", TestData(), "--epochs", "1", "--checkpoint-dir",
                                 dir.Join("ckpt")}),
                     2, "environment variable PETNAME_ATTEMPT must be a whole number");
  ::unsetenv("PETNAME_ATTEMPT");
}

}  // namespace
}  // namespace petname::testing
