// `petname sweep`'s pure parts: the YAML file, a trial's command line, sweep.json.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/file_util.h"
#include "common/sweep/expand.h"
#include "trainer/sweep/sweep_file.h"
#include "trainer/sweep/sweep_status.h"
#include "trainer/sweep/trial_args.h"

#include "tests/support/test_paths.h"

namespace petname::sweep {
namespace {

constexpr char kSpecOnly[] = R"(
data: names.txt
template:
  dataset: {maxNames: 300, column: "Name"}
  training: {epochs: 2, precision: bf16}
parameters:
  - name: training.learningRate
    values: [0.001, 4e-3]
objective: {metric: validationLoss, goal: 2.5}
stopTrialAtGoal: true
)";

bool Has(const std::vector<std::string>& args, const std::string& flag, const std::string& value) {
  auto it = std::find(args.begin(), args.end(), flag);
  return it != args.end() && it + 1 != args.end() && *(it + 1) == value;
}

TEST(SweepFileTest, SpecOnlyWithDataTypesScalarsAsKubernetesDoes) {
  SweepFile f;
  ASSERT_TRUE(ParseSweepFile(kSpecOnly, "my-sweep", &f).ok());
  EXPECT_EQ(f.name, "my-sweep");
  EXPECT_EQ(f.data, "names.txt");
  EXPECT_FALSE(f.spec.contains("data"));
  EXPECT_EQ(f.spec["template"]["dataset"]["maxNames"], 300);
  EXPECT_TRUE(f.spec["template"]["dataset"]["column"].is_string());
  EXPECT_EQ(f.spec["parameters"][0]["values"][1], 0.004);
  EXPECT_EQ(f.spec["stopTrialAtGoal"], true);
  SweepSpec spec;
  EXPECT_TRUE(SweepSpecFromJson(f.spec, &spec).ok());
}

TEST(SweepFileTest, AWholeObjectTakesItsNameFromMetadata) {
  SweepFile f;
  ASSERT_TRUE(ParseSweepFile("apiVersion: petname.dev/v1alpha1\nkind: PetNameTrainingSweep\n"
                             "metadata: {name: grid-a}\nspec: {parallelTrialCount: 2}\n",
                             "file-stem", &f)
                  .ok());
  EXPECT_EQ(f.name, "grid-a");
  EXPECT_EQ(f.spec, nlohmann::json({{"parallelTrialCount", 2}}));
  EXPECT_EQ(ParseSweepFile("spec: 3\n", "x", &f).message(), "spec: must be a mapping");
}

TEST(SweepFileTest, BadYamlIsOneLineNamingTheLine) {
  SweepFile f;
  Status st = ParseSweepFile("template:\n  a: [1, 2\n", "x", &f);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("YAML error at line"), std::string::npos) << st.message();
  EXPECT_EQ(ParseSweepFile("- 1\n- 2\n", "x", &f).message(), "sweep file: must be a YAML mapping");
}

TEST(TrialArgsTest, MapsTheJobSpecToTrainFlags) {
  SweepFile f;
  ASSERT_TRUE(ParseSweepFile(kSpecOnly, "s", &f).ok());
  SweepSpec spec;
  ASSERT_TRUE(SweepSpecFromJson(f.spec, &spec).ok());
  std::vector<Assignment> trials;
  ASSERT_TRUE(ExpandTrials(spec, &trials).ok());
  TrialCommand c;
  ASSERT_TRUE(TrialTrainArgs(ApplyAssignment(spec.job_template, trials[1]), spec,
                             {"runs/s-001", "names.txt", 8, 2}, true, &c)
                  .ok());
  EXPECT_EQ(c.args[0], "train");
  EXPECT_TRUE(Has(c.args, "--nproc", "1"));
  EXPECT_TRUE(Has(c.args, "--threads", "4"));  // 8 CPUs / (2 trials x 1 rank)
  EXPECT_TRUE(Has(c.args, "--lr", "0.004"));
  EXPECT_TRUE(Has(c.args, "--epochs", "2"));
  EXPECT_TRUE(Has(c.args, "--precision", "bf16"));
  EXPECT_TRUE(Has(c.args, "--max-names", "300"));
  EXPECT_TRUE(Has(c.args, "--column", "Name"));
  EXPECT_TRUE(Has(c.args, "--data", "names.txt"));
  EXPECT_TRUE(Has(c.args, "--checkpoint-dir", "runs/s-001"));
  EXPECT_TRUE(Has(c.args, "--summary-json", "runs/s-001/summary.json"));
  EXPECT_TRUE(Has(c.args, "--goal", "validationLoss=2.5"));
  EXPECT_NE(std::find(c.args.begin(), c.args.end(), "--stop-at-goal"), c.args.end());
  EXPECT_EQ(c.args.back(), "--resume");
  EXPECT_EQ(c.batch_size_per_rank, 4096);  // the trainer's default
  EXPECT_FALSE(c.gpu);
}

TEST(TrialArgsTest, TheSeedGridExampleRunsEveryRankOnAGpu) {
  std::string text;
  ASSERT_TRUE(ReadFile(testing::SourcePath("examples/sweep-seed-grid.yaml"), &text).ok());
  SweepFile f;
  ASSERT_TRUE(ParseSweepFile(text, "sweep-seed-grid", &f).ok());
  EXPECT_EQ(f.name, "seed-grid");
  SweepSpec spec;
  ASSERT_TRUE(SweepSpecFromJson(f.spec, &spec).ok());
  std::vector<Assignment> trials;
  ASSERT_TRUE(ExpandTrials(spec, &trials).ok());
  ASSERT_EQ(trials.size(), 27u);
  TrialCommand c;
  ASSERT_TRUE(TrialTrainArgs(ApplyAssignment(spec.job_template, trials[26]), spec, {"d", "", 16, 1},
                             false, &c)
                  .ok());
  EXPECT_TRUE(Has(c.args, "--nproc", "16"));
  EXPECT_TRUE(Has(c.args, "--device", "cuda"));
  EXPECT_TRUE(Has(c.args, "--batch-size", "16384"));
  EXPECT_TRUE(Has(c.args, "--lr", "0.016"));
  EXPECT_EQ(c.ranks, 16);
  EXPECT_TRUE(c.gpu);  // the sweep gives the trial 16 GPUs of its own
}

TEST(TrialArgsTest, ThreadsFitTheBudget) {
  EXPECT_EQ(ThreadsPerRank(2, 2, 2), 1);
  EXPECT_EQ(ThreadsPerRank(16, 2, 2), 4);
  EXPECT_EQ(ThreadsPerRank(1, 3, 1), 1);
}

TEST(TrialArgsTest, AWrongTypeInTheTemplateIsNamed) {
  SweepSpec spec;
  TrialCommand c;
  Status st = TrialTrainArgs({{"replicas", "two"}}, spec, {"d", "", 2, 1}, false, &c);
  EXPECT_EQ(st.message(), "spec.template.replicas: must be a whole number >= 1 (got \"two\")");
  st = TrialTrainArgs({{"training", {{"precision", 16}}}}, spec, {"d", "", 2, 1}, false, &c);
  EXPECT_EQ(st.message(), "spec.template.training.precision: must be a string (got 16)");
  st = TrialTrainArgs({{"training", {{"deterministic", "yes"}}}}, spec, {"d", "", 2, 1}, false, &c);
  EXPECT_EQ(st.message(),
            "spec.template.training.deterministic: must be true or false (got \"yes\")");
}

TEST(TrialArgsTest, DeterministicIsAFlag) {
  SweepSpec spec;
  TrialCommand c;
  for (bool on : {false, true}) {
    ASSERT_TRUE(
        TrialTrainArgs({{"training", {{"deterministic", on}}}}, spec, {"d", "", 2, 1}, false, &c)
            .ok());
    EXPECT_EQ(std::count(c.args.begin(), c.args.end(), "--deterministic"), on ? 1 : 0);
  }
}

TEST(SweepStatusTest, RoundTripsWithNullsForUnknownNumbers) {
  SweepStatus s;
  s.name = "s";
  s.algorithm = "grid";
  s.phase = "Running";
  s.objective.has_goal = true;
  s.objective.goal = 2.5;
  TrialRecord done;
  done.trial.name = "s-000";
  done.trial.phase = TrialPhase::kSucceeded;
  done.trial.best_validation_loss = 2.4;
  done.trial.time_to_goal_seconds = 12.5;
  done.trial.parameters = {{"training.learningRate", Value{0.004, "", false}},
                           {"training.precision", Value{0, "bf16", true}}};
  done.ranks = 2;
  done.batch_size_per_rank = 1024;
  done.points.push_back({1, 12.5, 14.0, 2.4, 0.5});
  TrialRecord running;
  running.trial.name = "s-001";
  running.trial.phase = TrialPhase::kRunning;
  s.trials = {done, running};
  s.best = 0;
  const nlohmann::json j = SweepStatusToJson(s);
  EXPECT_EQ(j["best"], "s-000");
  EXPECT_TRUE(j["trials"][1]["val_loss"].is_null());
  EXPECT_EQ(j["counts"]["succeeded"], 1);
  EXPECT_EQ(j["counts"]["running"], 1);
  SweepStatus back;
  ASSERT_TRUE(SweepStatusFromJson(j, &back).ok());
  EXPECT_EQ(SweepStatusToJson(back), j);
  EXPECT_EQ(SweepStatusFromJson(nlohmann::json::object(), &back).code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace petname::sweep
