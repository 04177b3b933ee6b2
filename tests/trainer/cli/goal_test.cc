// `petname train --goal METRIC=VALUE [--stop-at-goal]` through the real binary: the summary's
// time to goal, stopping early with the goal epoch's checkpoint, a goal recalled on resume, and
// bad values.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "tests/trainer/cli/expect_run.h"
#include "tests/trainer/cli/run_petname.h"

namespace petname::testing {
namespace {

// Every epoch of the small run meets this loss, and none meets the unreachable one.
constexpr char kEasyGoal[] = "validationLoss=100";
constexpr char kUnreachableGoal[] = "validationLoss=0";

nlohmann::json ReadSummary(const std::string& path) {
  std::string text;
  EXPECT_TRUE(ReadFile(path, &text).ok()) << path;
  return nlohmann::json::parse(text);
}

TEST(GoalTest, StopAtGoalEndsAfterTheFirstEpochThatMeetsItWithItsCheckpoint) {
  TempDir dir;
  const std::string root = dir.Join("ckpt");
  std::vector<std::string> args = SmallTrainArgs(4, root);
  args.insert(args.end(), {"--goal", kEasyGoal, "--stop-at-goal", "--checkpoint-every-epochs", "3",
                           "--summary-json", dir.Join("s.json")});
  RunResult r = RunPetname(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("goal validationLoss <= 100 reached at epoch 1"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("stopping at the goal after epoch 1"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("epoch 2/4"), std::string::npos) << r.out;
  ExpectCheckpoints(root, {"epoch-000001"});  // off the 3-epoch interval, saved anyway
  nlohmann::json s = ReadSummary(dir.Join("s.json"));
  EXPECT_EQ(s["epochs"], 1);
  EXPECT_EQ(s["goal_reached_epoch"], 1);
  EXPECT_GT(s["time_to_goal_seconds"].get<double>(), 0);

  // Resumed, the goal reached by the first run is recognised and nothing more is trained.
  args.push_back("--resume");
  r = RunPetname(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("was reached at epoch 1 by an earlier run"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("epoch 2/4"), std::string::npos) << r.out;
  ExpectCheckpoints(root, {"epoch-000001"});
  nlohmann::json again = ReadSummary(dir.Join("s.json"));
  EXPECT_EQ(again["goal_reached_epoch"], 1);
  EXPECT_EQ(again["time_to_goal_seconds"], s["time_to_goal_seconds"]);
}

TEST(GoalTest, WithoutStopTheRunTrainsEveryEpochAndRecordsTheFirstThatMetTheGoal) {
  TempDir dir;
  std::vector<std::string> args = SmallTrainArgs(2, "");
  args.insert(args.end(), {"--goal", kEasyGoal, "--summary-json", dir.Join("s.json")});
  RunResult r = RunPetname(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("epoch 2/2"), std::string::npos) << r.out;
  nlohmann::json s = ReadSummary(dir.Join("s.json"));
  EXPECT_EQ(s["epochs"], 2);
  EXPECT_EQ(s["goal_reached_epoch"], 1);
}

TEST(GoalTest, AGoalNotReachedIsNullInTheSummary) {
  TempDir dir;
  std::vector<std::string> args = SmallTrainArgs(1, "");
  args.insert(args.end(),
              {"--goal", kUnreachableGoal, "--stop-at-goal", "--summary-json", dir.Join("s.json")});
  RunResult r = RunPetname(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir.Join("s.json"));
  EXPECT_TRUE(s["goal_reached_epoch"].is_null());
  EXPECT_TRUE(s["time_to_goal_seconds"].is_null());
}

TEST(GoalTest, BadGoalsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--goal", "validationLoss"}, "--goal must be METRIC=VALUE"},
      {{"--goal", "trainLoss=1"}, "unknown metric \"trainLoss\""},
      {{"--goal", "validationLoss=abc"}, "\"abc\" is not a number"},
      {{"--goal", "validationLoss=-1"}, "validationLoss must be >= 0"},
      {{"--goal", "validationAccuracy=1.5"}, "validationAccuracy must be in [0, 1]"},
      {{"--stop-at-goal"}, "--stop-at-goal needs --goal"},
  };
  for (const auto& [flags, needle] : cases) {
    std::vector<std::string> args = SmallTrainArgs(1, "");
    args.insert(args.end(), flags.begin(), flags.end());
    ExpectOneLineError(RunPetname(args), 2, needle);
  }
}

}  // namespace
}  // namespace petname::testing
