// `petname sweep` and `petname report --sweep` through the real binary: trials run as
// `petname train` processes, sweep.json, a re-run that keeps finished trials, --parallel,
// bad files.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_util.h"
#include "tests/support/test_paths.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"
#include "tests/trainer/launch/subprocess.h"
#include "tests/trainer/launch/syscall_hold.h"

namespace petname::testing {
namespace {

// Two trials of one tiny epoch each; every epoch meets the goal, so both stop at epoch 1.
constexpr char kTinyGrid[] = R"(apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: tiny}
spec:
  template:
    dataset: {maxNames: 200}
    training: {epochs: 2, batchSizePerReplica: 128}
  parameters:
    - name: training.learningRate
      values: [0.001, 0.004]
  parallelTrialCount: 2
  objective: {metric: validationLoss, goal: 100}
  stopTrialAtGoal: true
)";

std::string WriteConfig(const TempDir& dir, const std::string& text) {
  std::string path = dir.Join("sweep.yaml");
  EXPECT_TRUE(WriteFileAtomically(path, text).ok());
  return path;
}

std::vector<std::string> SweepArgs(const std::string& config, const std::string& dir,
                                   const std::string& parallel) {
  return {"sweep", "--config", config, "--dir", dir, "--parallel", parallel, "--data", TestData()};
}

// The most trials running at once, from the start and end lines of `out`.
int MostRunning(const std::string& out) {
  int running = 0;
  int most = 0;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("trial ", 0) != 0) continue;
    if (line.find(" started: ") != std::string::npos) most = std::max(most, ++running);
    if (line.find(" Succeeded: ") != std::string::npos ||
        line.find(" Failed: ") != std::string::npos) {
      --running;
    }
  }
  return most;
}

TEST(SweepTest, RunsEveryTrialKeepsFinishedOnesAndRendersTheReport) {
  TempDir dir;
  const std::string config = WriteConfig(dir, kTinyGrid);
  const std::string sweep_dir = dir.Join("runs");
  RunResult r = RunPetname(SweepArgs(config, sweep_dir, "1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(MostRunning(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("sweep tiny Succeeded"), std::string::npos) << r.out;

  std::string text;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep.json", &text).ok());
  const nlohmann::json s = nlohmann::json::parse(text);
  EXPECT_EQ(s["name"], "tiny");
  EXPECT_EQ(s["phase"], "Succeeded");
  ASSERT_EQ(s["trials"].size(), 2u);
  for (const nlohmann::json& t : s["trials"]) {
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(t["epochs"], 1) << t.dump();  // stopped at the goal
    EXPECT_TRUE(t["time_to_goal_seconds"].is_number()) << t.dump();
    EXPECT_TRUE(t["val_loss"].is_number()) << t.dump();
    EXPECT_TRUE(
        std::filesystem::exists(sweep_dir + "/" + t["name"].get<std::string>() + "/summary.json"));
  }
  EXPECT_EQ(s["trials"][1]["parameters"]["training.learningRate"], 0.004);
  EXPECT_TRUE(s["best"] == "tiny-000" || s["best"] == "tiny-001") << s["best"];
  EXPECT_EQ(s["counts"]["succeeded"], 2);

  // The same command again runs nothing: both trials are finished.
  r = RunPetname(SweepArgs(config, sweep_dir, "1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find(" started: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trial tiny-000 already Succeeded"), std::string::npos) << r.out;
  std::string again;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep.json", &again).ok());
  EXPECT_EQ(nlohmann::json::parse(again)["trials"], s["trials"]);

  r = RunPetname({"report", "--sweep", sweep_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html;
  ASSERT_TRUE(ReadFile(sweep_dir + "/report.html", &html).ok());
  EXPECT_NE(html.find("tiny-001"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(sweep_dir + "/sweep.svg"));
}

TEST(SweepTest, SigintStopsTheTrialAndTheSameCommandResumesIt) {
  TempDir dir;
  const std::string config = WriteConfig(dir, R"(template:
  dataset: {maxNames: 200}
  training: {epochs: 6, batchSizePerReplica: 128}
parameters:
  - name: training.learningRate
    values: [0.004]
)");
  const std::string sweep_dir = dir.Join("runs");
  std::vector<std::string> argv = SweepArgs(config, sweep_dir, "1");
  argv.insert(argv.begin(), PetnameBin());
  Subprocess sweep(argv, {}, Subprocess::Gated{});
  // The trial is held as it writes `latest` after its first checkpoint: SIGINT reaches the sweep
  // while the trial has trained an epoch and has not finished, however fast the machine is.
  SyscallHold hold(&sweep);
  const std::string latest_tmp = sweep_dir + "/sweep-000/.latest.tmp-";
  ASSERT_TRUE(hold.UntilOpen([&](const std::string& path, int) {
    return path.rfind(latest_tmp, 0) == 0;
  })) << hold.error()
      << "\n"
      << sweep.Output();
  ::kill(sweep.pid(), SIGINT);
  hold.Release();
  EXPECT_EQ(sweep.Wait(), 1) << sweep.Output();
  EXPECT_NE(sweep.Output().find("petname: error: sweep interrupted"), std::string::npos)
      << sweep.Output();
  std::string text;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep.json", &text).ok());
  const nlohmann::json stopped = nlohmann::json::parse(text);
  EXPECT_EQ(stopped["trials"][0]["phase"], "Pending") << text;
  EXPECT_FALSE(std::filesystem::exists(sweep_dir + "/sweep-000/summary.json"));

  RunResult r = RunPetname(SweepArgs(config, sweep_dir, "1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string log;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep-000/train.log", &log).ok());
  EXPECT_NE(log.find("resuming from " + sweep_dir + "/sweep-000/epoch-"), std::string::npos) << log;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep.json", &text).ok());
  EXPECT_EQ(nlohmann::json::parse(text)["trials"][0]["epochs"], 6) << text;
}

TEST(SweepTest, MedianStoppingStopsATrialBehindTheOthersForGood) {
  TempDir dir;
  const std::string config = WriteConfig(dir, R"(template:
  dataset: {maxNames: 200}
  training: {epochs: 12, batchSizePerReplica: 128}
parameters:
  - name: training.learningRate
    values: [0.004, 0.000001]
earlyStopping: {algorithm: medianStop, minTrialsRequired: 1}
)");
  const std::string sweep_dir = dir.Join("runs");
  RunResult r = RunPetname(SweepArgs(config, sweep_dir, "1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string text;
  ASSERT_TRUE(ReadFile(sweep_dir + "/sweep.json", &text).ok());
  nlohmann::json s = nlohmann::json::parse(text);
  EXPECT_EQ(s["trials"][0]["phase"], "Succeeded") << text;
  EXPECT_EQ(s["trials"][1]["phase"], "Stopped") << text;
  EXPECT_LT(s["trials"][1]["epochs"].get<int>(), 12) << text;
  EXPECT_NE(s["trials"][1]["message"].get<std::string>().find("median stopping"),
            std::string::npos);
  EXPECT_EQ(s["best"], "sweep-000");

  r = RunPetname(SweepArgs(config, sweep_dir, "1"));  // the stopped trial stays stopped
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("trial sweep-001 already Stopped"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" started: "), std::string::npos) << r.out;
}

TEST(SweepTest, ASweepWhoseTrialsAllFailExitsOne) {
  TempDir dir;
  const std::string config = WriteConfig(dir, kTinyGrid);
  std::vector<std::string> args = SweepArgs(config, dir.Join("runs"), "2");
  args.back() = dir.Join("no-such.csv");  // --data
  RunResult r = RunPetname(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("sweep tiny Failed"), std::string::npos) << r.out;
  std::string text;
  ASSERT_TRUE(ReadFile(dir.Join("runs/sweep.json"), &text).ok());
  const nlohmann::json s = nlohmann::json::parse(text);
  EXPECT_EQ(s["phase"], "Failed");
  EXPECT_TRUE(s["best"].is_null());
  for (const nlohmann::json& t : s["trials"]) {
    EXPECT_EQ(t["phase"], "Failed");
    EXPECT_NE(t["message"].get<std::string>().find("no-such.csv"), std::string::npos) << t;
  }
}

TEST(SweepTest, BadFilesAreUsageErrorsThatWriteNothing) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"spec: [1, 2\n", "YAML error at line"},
      {"template: {}\nparameters:\n  - name: training.lr\n    values: [1]\n",
       "unknown parameter \"training.lr\""},
      {"template: {replicas: two}\nparameters:\n  - name: training.epochs\n    values: [1]\n",
       "spec.template.replicas"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string config = WriteConfig(dir, text);
    ExpectOneLineError(RunPetname(SweepArgs(config, dir.Join("runs"), "1")), 2, needle);
    EXPECT_FALSE(std::filesystem::exists(dir.Join("runs"))) << text;
  }
  ExpectOneLineError(RunPetname(SweepArgs(dir.Join("missing.yaml"), dir.Join("runs"), "1")), 2,
                     "--config");
  ExpectOneLineError(RunPetname({"report", "--sweep", dir.Join("nothing-here")}), 1,
                     "nothing-here");
}

// GPU trials on this machine, which has no GPU: refused before anything is written, with and
// without --parallel (each trial would otherwise land on a cuda:0 that is not there).
TEST(SweepTest, GpuTrialsWithoutEnoughGpusAreRefusedBeforeAnythingRuns) {
  TempDir dir;
  std::string text = kTinyGrid;
  text.replace(text.find("    dataset:"), 0, "    resources: {gpusPerReplica: 1}\n");
  const std::string config = WriteConfig(dir, text);
  ExpectOneLineError(RunPetname(SweepArgs(config, dir.Join("runs"), "2")), 2,
                     "no GPU is visible (1 GPU per trial, 0 visible)");
  EXPECT_FALSE(std::filesystem::exists(dir.Join("runs")));
  ExpectOneLineError(
      RunPetname({"sweep", "--config", config, "--dir", dir.Join("runs"), "--data", TestData()}), 2,
      "sweep: the trials need GPUs but no GPU is visible");
  EXPECT_FALSE(std::filesystem::exists(dir.Join("runs")));
}

}  // namespace
}  // namespace petname::testing
