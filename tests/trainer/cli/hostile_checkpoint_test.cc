// Damaged and hostile checkpoint files through the real binary: a corpus made from
// a real one-epoch checkpoint (out-of-range and wrongly typed manifest fields, file names
// outside the directory, truncated or empty files, weights of another shape, an epoch
// directory name beyond int64) is given to `generate --checkpoint` and `train --resume`. Each
// fails with exit 1 and one "petname: error: ..." line (never an abort), or, for a directory
// that is not a checkpoint, is ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/cli/trained_checkpoint.h"

namespace petname::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct Damage {
  std::string name;
  // Applied to a copy of the checkpoint directory.
  void (*apply)(const std::string& dir);
  std::string generate_error;  // in generate's one error line ({dir}: the checkpoint)
  std::string resume_error;    // in train --resume's stderr
};

json ReadManifest(const std::string& dir) {
  std::string text;
  EXPECT_TRUE(ReadFile(dir + "/manifest.json", &text).ok());
  return json::parse(text);
}

void WriteManifest(const std::string& dir, const json& j) {
  std::ofstream(dir + "/manifest.json", std::ios::trunc) << j.dump(2);
}

void SetField(const std::string& dir, const std::string& pointer, const json& value) {
  json j = ReadManifest(dir);
  j[json::json_pointer(pointer)] = value;
  WriteManifest(dir, j);
}

const std::vector<Damage>& Corpus() {
  static const std::vector<Damage> corpus = {
      {"window -1", [](const std::string& d) { SetField(d, "/hyper_parameters/window", -1); },
       "hyper_parameters.window is -1, outside [1, 256]", "hyper_parameters.window is -1"},
      {"huge window",
       [](const std::string& d) { SetField(d, "/hyper_parameters/window", int64_t{1} << 40); },
       "hyper_parameters.window is 1099511627776", "hyper_parameters.window is 1099511627776"},
      {"huge hidden size",
       [](const std::string& d) { SetField(d, "/hyper_parameters/hidden_size", 1 << 30); },
       "hyper_parameters.hidden_size is 1073741824", "hyper_parameters.hidden_size is"},
      {"negative epoch", [](const std::string& d) { SetField(d, "/epoch", -5); },
       "manifest.json: epoch is -5", "manifest.json: epoch is -5"},
      {"vocabulary size",
       [](const std::string& d) { SetField(d, "/hyper_parameters/vocab_size", 200); },
       "vocab_size is 200 but the vocabulary has 31 characters", "vocab_size is 200"},
      {"window of the wrong type",
       [](const std::string& d) { SetField(d, "/hyper_parameters/window", "eight"); },
       "hyper_parameters.window must be an integer, not string", "must be an integer"},
      {"window as a float",
       [](const std::string& d) { SetField(d, "/hyper_parameters/window", 1e300); },
       "hyper_parameters.window must be an integer, not number", "must be an integer"},
      {"files not an object", [](const std::string& d) { SetField(d, "/files", "model.pt"); },
       "files must be an object, not string", "files must be an object"},
      {"absolute file name",
       [](const std::string& d) { SetField(d, "/files/~1etc~1passwd", kEmptySha256); },
       "files names \"/etc/passwd\", not a plain file name", "not a plain file name"},
      {"file name with ..",
       [](const std::string& d) { SetField(d, "/files/..~1epoch-000001~1model.pt", kEmptySha256); },
       "files names \"../epoch-000001/model.pt\"", "not a plain file name"},
      {"truncated manifest",
       [](const std::string& d) { fs::resize_file(d + "/manifest.json", 100); },
       "manifest.json is not valid JSON", "manifest.json is not valid JSON"},
      {"empty manifest", [](const std::string& d) { fs::resize_file(d + "/manifest.json", 0); },
       "manifest.json is not valid JSON", "manifest.json is not valid JSON"},
      {"empty model.safetensors with its checksum",
       [](const std::string& d) {
         fs::resize_file(d + "/model.safetensors", 0);
         SetField(d, "/files/model.safetensors", kEmptySha256);
       },
       "{dir}/model.safetensors: has 0 bytes, too few for the header length",
       "model.safetensors: has 0 bytes"},
      {"model.safetensors of a larger model than the manifest's (refused before it is read)",
       [](const std::string& d) { SetField(d, "/hyper_parameters/hidden_size", 64); },
       "{dir}/model.safetensors has 1932380 bytes, more than 1555332", "different model shape"},
      {"model.safetensors of a smaller model than the manifest's",
       [](const std::string& d) { SetField(d, "/hyper_parameters/hidden_size", 256); },
       "{dir}/model.safetensors: tensor lstm.weight_ih_l0 is F32 [512, 31], expected F32 [1024, "
       "31]",
       "different model shape"},
  };
  return corpus;
}

class HostileCheckpointTest : public TrainedCheckpointTest {};

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

TEST_F(HostileCheckpointTest, EveryDamageIsOneErrorLineAndExit1) {
  int n = 0;
  for (const Damage& damage : Corpus()) {
    SCOPED_TRACE(damage.name);
    const std::string root = CopyOfTrained("case-" + std::to_string(n++));
    const std::string dir = root + "/epoch-000001";
    damage.apply(dir);

    RunResult g = RunPetname({"generate", "--checkpoint", dir});
    ExpectOneLineError(g, 1, Replace(damage.generate_error, "{dir}", dir));
    EXPECT_EQ(g.out, "");

    RunResult t = RunPetname(Resume(root, 2));
    EXPECT_EQ(t.signal, 0);
    EXPECT_EQ(t.exit_code, 1) << t.err;
    EXPECT_NE(t.err.find(damage.resume_error), std::string::npos) << t.err;
    const size_t last = t.err.rfind('\n', t.err.size() - 2);
    EXPECT_EQ(t.err.find("petname: error: "), last + 1) << "one error line, the last: " << t.err;
    EXPECT_FALSE(fs::exists(root + "/epoch-000002"));
  }
}

// A directory named like an epoch but beyond int64 is not a checkpoint: it is ignored (it
// used to make std::stoll throw and abort) and the valid one is used.
TEST_F(HostileCheckpointTest, TwentyDigitEpochDirectoryIsIgnored) {
  const std::string root = CopyOfTrained("overlong");
  fs::copy(root + "/epoch-000001", root + "/epoch-99999999999999999999",
           fs::copy_options::recursive);
  RunResult g = RunPetname({"generate", "--checkpoint", root, "--count", "3"});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.err.rfind("petname: checkpoint " + root + "/epoch-000001 (epoch 1) of run ", 0), 0u)
      << "one line naming the checkpoint read, nothing else: " << g.err;
  EXPECT_EQ(g.err.find('\n'), g.err.size() - 1) << g.err;
  RunResult t = RunPetname(Resume(root, 2));
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.err.find("resuming from " + root + "/epoch-000001"), std::string::npos) << t.err;
  ExpectCheckpoints(root, {"epoch-000001", "epoch-000002"});
}

}  // namespace
}  // namespace petname::testing
