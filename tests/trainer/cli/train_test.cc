// Training and generation through the real binary: determinism, resume equality, the
// summary, checkpoint contents and generated names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/file_util.h"
#include "tests/trainer/cli/run_petname.h"
#include "trainer/checkpoint/store.h"

namespace petname::testing {
namespace {

nlohmann::json TrainWithSummary(std::vector<std::string> args, const TempDir& dir,
                                const std::string& name) {
  args.insert(args.end(), {"--summary-json", dir.Join(name)});
  RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string text;
  EXPECT_TRUE(ReadFile(dir.Join(name), &text).ok());
  return nlohmann::json::parse(text);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(TrainTest, SummaryHasTheIssueFieldsAndOneLinePerEpoch) {
  TempDir dir;
  RunResult r = RunPetname(SmallTrainArgs(2, ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("epoch 1/2  train_loss ", 0), 0u) << lines[0];
  EXPECT_NE(lines[1].find("val_accuracy"), std::string::npos);
  EXPECT_NE(r.err.find("200 usable names"), std::string::npos) << r.err;

  nlohmann::json s = TrainWithSummary(SmallTrainArgs(2, ""), dir, "s.json");
  for (const char* key : {"epochs", "steps", "train_loss", "val_loss", "val_accuracy",
                          "samples_per_second", "wall_seconds", "peak_rss_bytes"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_EQ(s["epochs"], 2);
  EXPECT_GT(s["steps"].get<int>(), 2);
  EXPECT_GT(s["peak_rss_bytes"].get<int64_t>(), 0);
  EXPECT_LT(s["train_loss_trace"][1].get<double>(), s["train_loss_trace"][0].get<double>());
}

TEST(TrainTest, SameSeedSameTrace) {
  TempDir dir;
  nlohmann::json a = TrainWithSummary(SmallTrainArgs(2, ""), dir, "a.json");
  nlohmann::json b = TrainWithSummary(SmallTrainArgs(2, ""), dir, "b.json");
  EXPECT_EQ(a["train_loss_trace"], b["train_loss_trace"]);
  EXPECT_EQ(a["val_loss_trace"], b["val_loss_trace"]);
  EXPECT_EQ(a["parameters_sha256"], b["parameters_sha256"]);
  std::vector<std::string> other = SmallTrainArgs(2, "");
  other.insert(other.end(), {"--seed", "7"});
  nlohmann::json c = TrainWithSummary(other, dir, "c.json");
  EXPECT_NE(a["train_loss_trace"], c["train_loss_trace"]);
}

// Trains 2 epochs straight and 1 + 1 with --resume (both with `extra` flags); the resumed run
// must end exactly where the straight one did. Returns the straight run's summary.
nlohmann::json ExpectResumeEqualsUninterrupted(const std::vector<std::string>& extra) {
  TempDir dir;
  auto args = [&](int epochs, const std::string& ckpt) {
    std::vector<std::string> a = SmallTrainArgs(epochs, dir.Join(ckpt));
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  nlohmann::json straight = TrainWithSummary(args(2, "a"), dir, "a.json");
  nlohmann::json first = TrainWithSummary(args(1, "b"), dir, "b1.json");
  std::vector<std::string> resume = args(2, "b");
  resume.push_back("--resume");
  nlohmann::json second = TrainWithSummary(resume, dir, "b2.json");
  EXPECT_EQ(second["epochs"], 2);
  EXPECT_EQ(second["steps"], straight["steps"]);
  EXPECT_EQ(second["train_loss"], straight["train_loss"]);
  EXPECT_EQ(second["val_loss"], straight["val_loss"]);
  EXPECT_EQ(second["parameters_sha256"], straight["parameters_sha256"]);
  EXPECT_NE(first["parameters_sha256"], straight["parameters_sha256"]);
  return straight;
}

TEST(TrainTest, ResumeEqualsUninterrupted) { ExpectResumeEqualsUninterrupted({}); }

// The device-generic step (the GPU's, run here on the CPU) resumes exactly too: its Adam state
// goes through the same checkpoint files and its shapes do not depend on where it resumed.
TEST(TrainTest, DeviceForestResumeEqualsUninterrupted) {
  ExpectResumeEqualsUninterrupted({"--lstm-impl", "device-forest"});
}

// --deterministic (gradient sums in a fixed order, model/fixed_order.h): the device forest still
// resumes exactly, and trains the same function as without it (the sums differ only in their
// order, so the traces agree to float rounding).
TEST(TrainTest, DeterministicDeviceForestResumesExactlyAndTrainsLikeTheDefault) {
  TempDir dir;
  const nlohmann::json fixed =
      ExpectResumeEqualsUninterrupted({"--lstm-impl", "device-forest", "--deterministic"});
  std::vector<std::string> args = SmallTrainArgs(2, "");
  args.insert(args.end(), {"--lstm-impl", "device-forest"});
  const nlohmann::json plain = TrainWithSummary(args, dir, "plain.json");
  for (const char* trace : {"train_loss_trace", "val_loss_trace"}) {
    for (size_t e = 0; e < 2; ++e) {
      const double want = plain[trace][e].get<double>();
      EXPECT_NEAR(fixed[trace][e].get<double>(), want, 1e-5 * want) << trace << e;
    }
  }
}

// The three LSTM implementations compute the same function and the two optimizers the same
// update: the loss traces agree to float rounding.
TEST(TrainTest, DeviceImplementationsTrainLikeTheHostForest) {
  TempDir dir;
  std::vector<nlohmann::json> runs;
  for (const char* impl : {"host-forest", "device-forest", "cudnn"}) {
    std::vector<std::string> args = SmallTrainArgs(2, "");
    args.insert(args.end(), {"--lstm-impl", impl});
    runs.push_back(TrainWithSummary(args, dir, std::string(impl) + ".json"));
  }
  for (size_t k = 1; k < runs.size(); ++k) {
    for (const char* trace : {"train_loss_trace", "val_loss_trace"}) {
      for (size_t e = 0; e < 2; ++e) {
        const double want = runs[0][trace][e].get<double>();
        EXPECT_NEAR(runs[k][trace][e].get<double>(), want, 1e-4 * want) << k << trace << e;
      }
    }
  }
}

// A checkpoint is the same whichever implementation wrote it: the device forest's first epoch
// continues on the host forest as if the host forest had trained it.
TEST(TrainTest, CheckpointsMoveBetweenImplementations) {
  TempDir dir;
  nlohmann::json host = TrainWithSummary(SmallTrainArgs(2, dir.Join("h")), dir, "h.json");
  std::vector<std::string> first = SmallTrainArgs(1, dir.Join("d"));
  first.insert(first.end(), {"--lstm-impl", "device-forest"});
  TrainWithSummary(first, dir, "d1.json");
  std::vector<std::string> second = SmallTrainArgs(2, dir.Join("d"));
  second.push_back("--resume");
  nlohmann::json resumed = TrainWithSummary(second, dir, "d2.json");
  EXPECT_EQ(resumed["steps"], host["steps"]);
  EXPECT_NEAR(resumed["val_loss"].get<double>(), host["val_loss"].get<double>(),
              1e-4 * host["val_loss"].get<double>());
}

// The warm-up is a function of the optimizer step, so it continues across a resume; 15 steps
// span the first epoch's ~9 steps. It must also change the trajectory, i.e. take effect.
TEST(TrainTest, WarmupChangesTrainingAndSurvivesResume) {
  TempDir dir;
  nlohmann::json plain = TrainWithSummary(SmallTrainArgs(2, ""), dir, "plain.json");
  nlohmann::json warm = ExpectResumeEqualsUninterrupted({"--warmup-steps", "15"});
  EXPECT_NE(warm["parameters_sha256"], plain["parameters_sha256"]);
  EXPECT_EQ(warm["steps"], plain["steps"]);
}

// Cosine decay ends at a small rate: the last epoch's learning_rate in metrics.jsonl is far
// below --lr, and a constant schedule records --lr itself.
TEST(TrainTest, LearningRateScheduleIsRecorded) {
  TempDir dir;
  for (const char* schedule : {"constant", "cosine"}) {
    std::vector<std::string> args = SmallTrainArgs(2, dir.Join(schedule));
    args.insert(args.end(), {"--lr", "0.002", "--lr-schedule", schedule});
    RunResult r = RunPetname(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string log;
    ASSERT_TRUE(ReadFile(dir.Join(std::string(schedule) + "/metrics.jsonl"), &log).ok());
    std::vector<std::string> lines = Lines(log);
    ASSERT_EQ(lines.size(), 2u) << log;
    const double last = nlohmann::json::parse(lines[1])["learning_rate"].get<double>();
    if (std::string(schedule) == "constant") {
      EXPECT_DOUBLE_EQ(last, 0.002);
    } else {
      EXPECT_GT(last, 0.0);
      EXPECT_LT(last, 0.0002);
    }
  }
}

TEST(TrainTest, CheckpointLayoutAndRetention) {
  TempDir dir;
  std::vector<std::string> args = SmallTrainArgs(3, dir.Join("ckpt"));
  args.back() = "2";  // --keep 2
  RunResult r = RunPetname(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(checkpoint::ListCheckpoints(dir.Join("ckpt")),
            (std::vector<std::string>{"epoch-000002", "epoch-000003"}));
  std::string latest;
  ASSERT_TRUE(ReadFile(dir.Join("ckpt/latest"), &latest).ok());
  EXPECT_EQ(latest, "epoch-000003\n");
  checkpoint::Manifest m;
  ASSERT_TRUE(checkpoint::VerifyCheckpoint(dir.Join("ckpt/epoch-000003"), &m, "").ok());
  EXPECT_EQ(m.epoch, 3);
  EXPECT_EQ(m.hyper.hidden_size, 128);
  EXPECT_EQ(m.data_fingerprint.size(), 64u);
  for (const char* f :
       {"model.safetensors", "optimizer.safetensors", "rng.safetensors", "names.txt"}) {
    EXPECT_EQ(m.files.count(f), 1u) << f;
  }
}

class GenerateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    RunResult r = RunPetname(SmallTrainArgs(2, dir_->Join("ckpt")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::vector<std::string> Generate(std::vector<std::string> extra) {
    std::vector<std::string> args = {"generate", "--checkpoint", dir_->Join("ckpt")};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunPetname(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Lines(r.out);
  }

  static TempDir* dir_;
};

TempDir* GenerateTest::dir_ = nullptr;

TEST_F(GenerateTest, DeterministicTitleCasedNames) {
  std::vector<std::string> a = Generate({"--count", "12", "--seed", "5"});
  ASSERT_EQ(a.size(), 12u);
  EXPECT_EQ(a, Generate({"--count", "12", "--seed", "5"}));
  EXPECT_NE(a, Generate({"--count", "12", "--seed", "6"}));
  for (const std::string& n : a) {
    ASSERT_FALSE(n.empty());
    EXPECT_TRUE(n[0] >= 'A' && n[0] <= 'Z') << n;
    EXPECT_EQ(n.find_first_of("*+"), std::string::npos) << n;
    EXPECT_LE(n.size(), 24u);
  }
}

TEST_F(GenerateTest, PrefixTemperatureAndExclusion) {
  for (const std::string& n : Generate({"--prefix", "Ma", "--temperature", "0.5"})) {
    EXPECT_EQ(n.rfind("Ma", 0), 0u) << n;
  }
  std::string text;
  ASSERT_TRUE(ReadFile(dir_->Join("ckpt/latest"), &text).ok());
  std::string names_txt;
  ASSERT_TRUE(
      ReadFile(dir_->Join("ckpt/" + text.substr(0, text.size() - 1) + "/names.txt"), &names_txt)
          .ok());
  std::set<std::string> training;
  for (const std::string& n : Lines(names_txt)) training.insert(n);
  std::vector<std::string> fresh = Generate({"--count", "20", "--exclude-training-names"});
  ASSERT_EQ(fresh.size(), 20u);
  for (std::string n : fresh) {
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(training.count(n), 0u) << n;
  }
}

}  // namespace
}  // namespace petname::testing
