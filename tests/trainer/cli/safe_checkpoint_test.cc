// What someone who can write a checkpoint directory (another tenant of a shared claim, or the
// owner of a directory the trainer was pointed at) can plant there, through the real binary
// (docs/contributing/faults.md):
//  - a format-1 model.pt whose loading runs code (a TorchScript __setstate__ that prints a line
//    and overwrites a file), or a few hundred KB that inflate to 128 MiB: never loaded;
//  - a model.safetensors whose header lies, or far larger than the model, with its sha256
//    recomputed in the manifest: refused naming the file, before it is read;
//  - an epoch without the job's secret where the operator runs the job: skipped for the job's
//    own checkpoint on resume, refused when named;
//  - a checkpoint directory of another user, or writable by others: exit 73, nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/exit_codes.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/cli/trained_checkpoint.h"
#include "tests/trainer/launch/subprocess.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/checkpoint/store.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSecret = "9b0c7d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c";
constexpr int64_t kMiB = int64_t{1} << 20;

// The environment the operator gives a rank of job default/rex.
const std::map<std::string, std::string>& JobEnv() {
  static const std::map<std::string, std::string> env = {{"PETNAME_JOB_UID", "u-rex"},
                                                         {"PETNAME_JOB_NAME", "rex"},
                                                         {"PETNAME_NAMESPACE", "default"},
                                                         {"PETNAME_RENDEZVOUS_SECRET", kSecret}};
  return env;
}

json ReadJson(const std::string& path) {
  std::string text;
  EXPECT_TRUE(ReadFile(path, &text).ok()) << path;
  return json::parse(text);
}

void WriteJson(const std::string& path, const json& j) {
  std::ofstream(path, std::ios::trunc) << j.dump(2);
}

std::string Sha256Of(const std::string& path) {
  std::string hex;
  EXPECT_TRUE(Sha256File(path, &hex).ok()) << path;
  return hex;
}

// Records the sha256 of every file the manifest of `dir` lists as it is now.
void RecomputeChecksums(const std::string& dir) {
  json j = ReadJson(dir + "/manifest.json");
  for (auto& [name, sha] : j["files"].items()) sha = Sha256Of(dir + "/" + name);
  WriteJson(dir + "/manifest.json", j);
}

class SafeCheckpointTest : public TrainedCheckpointTest {
 protected:
  // Runs tests/trainer/cli/torchscript_payload.py; false (the test then skips) without torch.
  static bool Payload(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {TorchPython(),
                                     SourcePath("tests/trainer/cli/torchscript_payload.py")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string output;
    const int code = RunProcess(argv, {}, &output);
    EXPECT_TRUE(code == 0 || code == 77) << output;
    return code == 0;
  }

  // Makes `dir` a format-1 checkpoint of epoch 2, a copy of the trained one whose model.pt is
  // the archive at `model_pt`, every checksum matching: what an older petname read with
  // torch::load.
  void PlantFormat1(const std::string& dir, const std::string& model_pt) {
    fs::copy(trained_ + "/epoch-000001", dir, fs::copy_options::recursive);
    fs::copy_file(model_pt, dir + "/model.pt", fs::copy_options::overwrite_existing);
    json j = ReadJson(dir + "/manifest.json");
    j["format_version"] = 1;
    j["epoch"] = 2;
    j.erase("mac");
    j["files"] = {{"model.pt", ""}, {"names.txt", ""}};
    WriteJson(dir + "/manifest.json", j);
    RecomputeChecksums(dir);
  }
};

// A format-1 model.pt whose __setstate__ prints a line and overwrites the first bytes of a
// file, planted as the newest epoch: generate, export and resume refuse it with one line naming
// the conversion command; no code runs.
TEST_F(SafeCheckpointTest, ATorchScriptModelThatRunsCodeIsNeverLoaded) {
  const std::string root = CopyOfTrained("planted");
  const std::string victim = dir_.Join("victim");
  std::ofstream(victim) << "original contents\n";
  if (!Payload({"payload", dir_.Join("payload.pt"), victim, "INJECTED-BY-MODEL-PT"})) {
    GTEST_SKIP() << "no torch in " << TorchPython();
  }
  PlantFormat1(root + "/epoch-000002", dir_.Join("payload.pt"));
  const std::vector<std::vector<std::string>> runs = {
      {"generate", "--checkpoint", root + "/epoch-000002"},
      {"generate", "--checkpoint", root},
      {"export", "--checkpoint", root, "--output", dir_.Join("out.safetensors")},
      Resume(root, 3)};
  for (const auto& args : runs) {
    SCOPED_TRACE(args[0] + " " + args[2]);
    const RunResult r = RunPetname(args);
    ExpectOneLineError(r, 1, root + "/epoch-000002: checkpoint format version 1 is not supported",
                       /*only_line=*/args[0] != "train");
    EXPECT_NE(r.err.find("`petname convert-checkpoints --checkpoint-dir DIR`"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("INJECTED"), std::string::npos) << r.out;
    std::string contents;
    ASSERT_TRUE(ReadFile(victim, &contents).ok());
    EXPECT_EQ(contents, "original contents\n") << "the archive's code ran";
  }
  EXPECT_FALSE(fs::exists(dir_.Join("out.safetensors")));
}

// A 128 MiB storage deflated into a few hundred KB: the cap on a file's size applied to the
// compressed file, so loading it used to inflate it all. Now it is never inflated: the peak
// resident memory stays near that of an honest generate.
TEST_F(SafeCheckpointTest, ADeflatedStorageIsNeverInflated) {
  if (!Payload({"bomb", dir_.Join("bomb.pt"), "128"})) {
    GTEST_SKIP() << "no torch in " << TorchPython();
  }
  ASSERT_LT(fs::file_size(dir_.Join("bomb.pt")), static_cast<uintmax_t>(4 * kMiB));
  const std::string root = CopyOfTrained("bomb");
  const RunResult honest = RunPetname({"generate", "--checkpoint", root + "/epoch-000001"});
  ASSERT_EQ(honest.exit_code, 0) << honest.err;
  PlantFormat1(root + "/epoch-000002", dir_.Join("bomb.pt"));
  const RunResult r = RunPetname({"generate", "--checkpoint", root + "/epoch-000002"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(r.max_rss_kb, honest.max_rss_kb + 64 * 1024)
      << "peak " << r.max_rss_kb << " KiB, an honest generate's " << honest.max_rss_kb;
}

// model.safetensors rewritten: `edit` changes its header (parsed) and may replace its data;
// the manifest's checksum is recomputed, so only the reader stands in the way.
void RewriteModel(const std::string& dir, const std::function<void(json*, std::string*)>& edit) {
  std::string file;
  ASSERT_TRUE(ReadFile(dir + "/model.safetensors", &file).ok());
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<size_t>(i)]);
  json header = json::parse(file.substr(8, n));
  std::string data = file.substr(8 + n);
  edit(&header, &data);
  const std::string text = header.dump();
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  std::ofstream(dir + "/model.safetensors", std::ios::binary | std::ios::trunc)
      << out << text << data;
}

// A header that lies about a shape, an offset or its own length, or a file far larger than
// the model (a sparse 256 MiB one): each is refused with one line naming the file and the lie,
// and nothing larger than the model needs is read (the peak memory of the sparse one stays
// near an honest generate's).
TEST_F(SafeCheckpointTest, ASafetensorsFileThatLiesIsRefusedBeforeItIsRead) {
  struct Case {
    const char* name;
    std::function<void(const std::string& dir)> apply;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"another shape",
       [](const std::string& d) {
         RewriteModel(d, [](json* h, std::string*) {
           (*h)["lstm.weight_ih_l0"]["shape"] = {1024, 31};
         });
       },
       "model.safetensors: tensor lstm.weight_ih_l0 is F32 [1024, 31], expected F32 [512, 31]"},
      {"offsets beyond the data",
       [](const std::string& d) {
         RewriteModel(d, [](json* h, std::string*) {
           (*h)["head.bias"]["data_offsets"] = {uint64_t{1} << 40, (uint64_t{1} << 40) + 124};
         });
       },
       "model.safetensors: tensor head.bias begins at byte 1099511627776"},
      {"a header length of 2^62",
       [](const std::string& d) {
         std::fstream f(d + "/model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
         const char length[8] = {0, 0, 0, 0, 0, 0, 0, 0x40};
         f.write(length, 8);
       },
       "model.safetensors: header length 4611686018427387904 is more than 1048576"},
      {"a sparse 256 MiB file",
       [](const std::string& d) { fs::resize_file(d + "/model.safetensors", 256 * kMiB); },
       "model.safetensors has 268435456 bytes, more than"},
  };
  const std::string honest_root = CopyOfTrained("honest");
  const RunResult honest = RunPetname({"generate", "--checkpoint", honest_root});
  ASSERT_EQ(honest.exit_code, 0) << honest.err;
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string root = CopyOfTrained("lie-" + std::to_string(n++));
    const std::string dir = root + "/epoch-000001";
    c.apply(dir);
    RecomputeChecksums(dir);
    const RunResult g = RunPetname({"generate", "--checkpoint", dir});
    ExpectOneLineError(g, 1, c.error);
    EXPECT_EQ(g.out, "");
    EXPECT_LT(g.max_rss_kb, honest.max_rss_kb + 64 * 1024) << g.max_rss_kb;
    const RunResult t = RunPetname(Resume(root, 2));
    ExpectOneLineError(t, 1, c.error, /*only_line=*/false);
    EXPECT_FALSE(fs::exists(root + "/epoch-000002"));
  }
}

// Where the operator runs the job, its checkpoints are signed with the job's secret. An epoch
// planted by someone without it (unsigned, or signed with another secret) is skipped on resume
// with one warning, and the job's own checkpoint is used; named, it is refused; generate and
// export name the checkpoint they read and its owner.
TEST_F(SafeCheckpointTest, AnEpochPlantedWithoutTheJobsSecretIsRefused) {
  const std::string root = dir_.Join("job");
  const RunResult trained = RunPetname(SmallTrainArgs(1, root), JobEnv());
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const std::string planted = root + "/epoch-000002";
  // A copy of the job's epoch 1 claiming to be epoch 2, unsigned or signed with another secret.
  auto plant = [&](bool other_secret) {
    fs::remove_all(planted);
    fs::copy(root + "/epoch-000001", planted, fs::copy_options::recursive);
    json j = ReadJson(planted + "/manifest.json");
    j["epoch"] = 2;
    j.erase("mac");
    if (other_secret) j["mac"] = checkpoint::ManifestMac(j, "another job's secret");
    WriteJson(planted + "/manifest.json", j);
  };
  const std::string unsigned_error = planted + ": manifest.json is not signed with this job's key";
  const std::string other_error =
      planted + ": manifest.json's mac does not verify with this job's key";

  plant(/*other_secret=*/false);
  const RunResult t = RunPetname(Resume(root, 2), JobEnv());
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find("resuming from " + root + "/epoch-000001 (epoch 1"), std::string::npos)
      << t.err;
  EXPECT_NE(t.err.find("petname: warning: skipping damaged checkpoint: " + unsigned_error),
            std::string::npos)
      << t.err;
  checkpoint::Manifest m;
  EXPECT_TRUE(checkpoint::VerifyCheckpoint(planted, &m, kSecret).ok())
      << "the job's own epoch 2 replaced the planted one";

  plant(/*other_secret=*/false);
  RunResult g = RunPetname({"generate", "--checkpoint", planted}, JobEnv());
  ExpectOneLineError(g, 1, unsigned_error);
  plant(/*other_secret=*/true);
  const RunResult x = RunPetname(
      {"export", "--checkpoint", planted, "--output", dir_.Join("x.safetensors")}, JobEnv());
  ExpectOneLineError(x, 1, other_error);
  EXPECT_FALSE(fs::exists(dir_.Join("x.safetensors")));

  g = RunPetname({"generate", "--checkpoint", root, "--count", "2"}, JobEnv());
  EXPECT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.err, "petname: warning: skipping damaged checkpoint: " + other_error +
                       "\npetname: checkpoint " + root +
                       "/epoch-000001 (epoch 1) of job default/rex (uid u-rex), signed with "
                       "this job's key\n");
}

// Another job pointed at this job's directory (another secret): nothing verifies, and the one
// line says whose the checkpoints are, as for checkpoints of another owner; they are untouched.
TEST_F(SafeCheckpointTest, AnotherJobPointedAtTheDirectoryIsToldWhoseItIs) {
  const std::string root = dir_.Join("rex");
  ASSERT_EQ(RunPetname(SmallTrainArgs(1, root), JobEnv()).exit_code, 0);
  std::map<std::string, std::string> other = JobEnv();
  other["PETNAME_JOB_UID"] = "u-fido";
  other["PETNAME_JOB_NAME"] = "fido";
  other["PETNAME_RENDEZVOUS_SECRET"] = "fido's own secret";
  const std::string before = Sha256Of(root + "/epoch-000001/manifest.json");
  const RunResult r = RunPetname(Resume(root, 2), other);
  ExpectOneLineError(r, 1,
                     "the checkpoints in " + root +
                         " belong to job default/rex (uid u-rex), not to job default/fido (uid "
                         "u-fido) (none of them is signed with this job's key)",
                     /*only_line=*/false);
  EXPECT_EQ(Sha256Of(root + "/epoch-000001/manifest.json"), before);
  EXPECT_FALSE(fs::exists(root + "/epoch-000002"));
}

// Locally (no operator environment) checkpoints are unsigned, as before, and generate says so.
TEST_F(SafeCheckpointTest, LocallyCheckpointsAreUnsignedAndSaySo) {
  ASSERT_FALSE(ReadJson(trained_ + "/epoch-000001/manifest.json").contains("mac"));
  const RunResult g = RunPetname({"generate", "--checkpoint", trained_, "--count", "1"});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  const json manifest = ReadJson(trained_ + "/epoch-000001/manifest.json");
  EXPECT_EQ(g.err, "petname: checkpoint " + trained_ + "/epoch-000001 (epoch 1) of " +
                       manifest["owner"]["id"].get<std::string>() + ", not signed\n");
}

// A checkpoint directory that exists but is another user's, or writable by its group or by
// others: the run stops before anything is written, exit 73, one line saying why.
TEST(SafeCheckpointDirTest, ADirectoryOfAnotherUserOrWritableByOthersIsRefused) {
  TempDir dir;
  const std::string job = dir.Join("claim/job");
  fs::create_directories(job);
  struct Case {
    uid_t uid;
    mode_t mode;
    std::string error;
  };
  const uid_t me = ::geteuid();
  const std::vector<Case> cases = {
      {12345, 0777, "belongs to uid 12345, not to this process's uid " + std::to_string(me)},
      {me, 0777, "is writable by others (mode 0777); refusing to use it (chmod go-w " + job},
      {me, 0770, "is writable by its group (mode 0770)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.error);
    if (::chown(job.c_str(), c.uid, static_cast<gid_t>(-1)) != 0) {
      GTEST_SKIP() << "cannot give " << job << " to uid " << c.uid << " here";
    }
    ASSERT_EQ(::chmod(job.c_str(), c.mode), 0);
    const RunResult r = RunPetname(SmallTrainArgs(1, job));
    ExpectOneLineError(
        r, kExitCheckpointDirUnusable,
        "checkpoint directory unusable: checkpoint directory " + job + " " + c.error);
    EXPECT_TRUE(fs::is_empty(job)) << "nothing written inside";
  }
  ASSERT_EQ(::chown(job.c_str(), me, static_cast<gid_t>(-1)), 0);
  ASSERT_EQ(::chmod(job.c_str(), 0755), 0);
  const RunResult r = RunPetname(SmallTrainArgs(1, job));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace petname::testing
