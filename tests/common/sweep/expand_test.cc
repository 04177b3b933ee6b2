#include "common/sweep/expand.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace petname::sweep {
namespace {

SweepSpec Parse(const std::string& json) {
  SweepSpec s;
  Status st = SweepSpecFromJson(Json::parse(json), &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::vector<Assignment> Expand(const SweepSpec& s) {
  std::vector<Assignment> trials;
  Status st = ExpandTrials(s, &trials);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return trials;
}

std::vector<std::string> Describe(const std::vector<Assignment>& trials) {
  std::vector<std::string> out;
  for (const auto& a : trials) out.push_back(DescribeAssignment(a));
  return out;
}

constexpr const char* kGrid = R"({"template": {}, "parameters": [
    {"name": "replicas", "values": [1, 2]},
    {"name": "training.precision", "values": ["fp32", "bf16"]},
    {"name": "training.learningRate", "values": [0.001, 0.004, 0.016]}]})";

TEST(ExpandTest, GridIsTheProductWithTheLastParameterFastest) {
  std::vector<std::string> got = Describe(Expand(Parse(kGrid)));
  ASSERT_EQ(got.size(), 12U);
  EXPECT_EQ(got[0], "replicas=1 training.precision=fp32 training.learningRate=0.001");
  EXPECT_EQ(got[1], "replicas=1 training.precision=fp32 training.learningRate=0.004");
  EXPECT_EQ(got[2], "replicas=1 training.precision=fp32 training.learningRate=0.016");
  EXPECT_EQ(got[3], "replicas=1 training.precision=bf16 training.learningRate=0.001");
  EXPECT_EQ(got[6], "replicas=2 training.precision=fp32 training.learningRate=0.001");
  EXPECT_EQ(got[11], "replicas=2 training.precision=bf16 training.learningRate=0.016");
}

TEST(ExpandTest, MaxTrialCountCutsTheGrid) {
  SweepSpec s = Parse(kGrid);
  s.max_trial_count = 5;
  std::vector<std::string> got = Describe(Expand(s));
  ASSERT_EQ(got.size(), 5U);
  EXPECT_EQ(got[4], "replicas=1 training.precision=bf16 training.learningRate=0.004");
  s.max_trial_count = 100;
  EXPECT_EQ(Expand(s).size(), 12U);
}

TEST(ExpandTest, RangeGridHasExactDecimalSteps) {
  SweepSpec s = Parse(R"({"template": {}, "parameters": [
      {"name": "training.learningRate", "min": 0.001, "max": 0.016, "step": 0.003}]})");
  std::vector<Value> values = GridValues(s.parameters[0]);
  std::vector<double> want = {0.001, 0.004, 0.007, 0.01, 0.013, 0.016};
  ASSERT_EQ(values.size(), want.size());
  EXPECT_EQ(GridSize(s.parameters[0]), 6);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(values[i].number, want[i]) << i;
  EXPECT_EQ(values[3].ToString(), "0.01");
}

TEST(ExpandTest, RangeGridStopsAtMaxAndWritesIntegers) {
  SweepSpec s = Parse(R"({"template": {}, "parameters": [
      {"name": "training.batchSizePerReplica", "min": 1024, "max": 4000, "step": 1024},
      {"name": "training.learningRate", "min": 0.1, "max": 0.3, "step": 0.1}]})");
  std::vector<std::string> got = Describe(Expand(s));
  ASSERT_EQ(got.size(), 9U);
  EXPECT_EQ(got[0], "training.batchSizePerReplica=1024 training.learningRate=0.1");
  EXPECT_EQ(got[2], "training.batchSizePerReplica=1024 training.learningRate=0.3");
  EXPECT_EQ(got[8], "training.batchSizePerReplica=3072 training.learningRate=0.3");
}

constexpr const char* kRandom = R"({"template": {}, "algorithm": "random", "seed": 11,
    "maxTrialCount": 200, "parameters": [
    {"name": "training.learningRate", "min": 0.0001, "max": 0.01, "scale": "log"},
    {"name": "training.batchSizePerReplica", "min": 512, "max": 4096},
    {"name": "training.warmupSteps", "min": 0, "max": 100, "step": 25},
    {"name": "replicas", "min": 1, "max": 4, "scale": "log"},
    {"name": "training.precision", "values": ["fp32", "bf16"]}]})";

TEST(ExpandTest, RandomIsDeterministicPerSeed) {
  SweepSpec s = Parse(kRandom);
  std::vector<std::string> a = Describe(Expand(s));
  EXPECT_EQ(a, Describe(Expand(s)));
  s.seed = 12;
  EXPECT_NE(a, Describe(Expand(s)));
}

TEST(ExpandTest, RandomDrawsStayInRangeAndOnTheirGrid) {
  std::vector<Assignment> trials = Expand(Parse(kRandom));
  ASSERT_EQ(trials.size(), 200U);
  std::set<double> warmups;
  std::set<std::string> precisions;
  double low_lr = 1;
  for (const Assignment& a : trials) {
    double lr = a[0].second.number;
    EXPECT_GE(lr, 0.0001);
    EXPECT_LE(lr, 0.01);
    low_lr = std::min(low_lr, lr);
    double batch = a[1].second.number;
    EXPECT_GE(batch, 512);
    EXPECT_LE(batch, 4096);
    EXPECT_TRUE(a[1].second.ToJson().is_number_integer());
    warmups.insert(a[2].second.number);
    double replicas = a[3].second.number;
    EXPECT_TRUE(replicas == 1 || replicas == 2 || replicas == 3 || replicas == 4) << replicas;
    precisions.insert(a[4].second.text);
  }
  EXPECT_EQ(warmups, (std::set<double>{0, 25, 50, 75, 100}));
  EXPECT_EQ(precisions, (std::set<std::string>{"fp32", "bf16"}));
  // Log scale: about a third of the draws fall in the lowest decade's [1e-4, 1e-3).
  EXPECT_LT(low_lr, 0.001);
}

TEST(ExpandTest, RandomDefaultsToTenTrials) {
  SweepSpec s = Parse(R"({"template": {}, "algorithm": "random", "parameters": [
      {"name": "training.learningRate", "min": 0.001, "max": 0.002}]})");
  EXPECT_EQ(Expand(s).size(), 10U);
}

TEST(ExpandTest, RefusesWhatTheParserRefuses) {
  SweepSpec s;
  std::vector<Assignment> trials;
  EXPECT_FALSE(ExpandTrials(s, &trials).ok());
  Parameter p;
  p.name = "training.learningRate";
  p.is_range = true;
  p.min = 0.1;
  p.max = 1;
  s.parameters.push_back(p);
  EXPECT_FALSE(ExpandTrials(s, &trials).ok());  // a grid range without step
}

TEST(ExpandTest, NamesTrialsWithThreeDigits) {
  EXPECT_EQ(TrialName("seed-grid", 7), "seed-grid-007");
  EXPECT_EQ(TrialName("s", 123), "s-123");
}

TEST(ExpandTest, ApplyAssignmentSetsNestedFieldsAndIntegers) {
  Json job = Json::parse(R"({"replicas": 1, "training": {"epochs": 3}, "resources": 5})");
  Assignment a;
  Value two;
  two.number = 2;
  Value lr;
  lr.number = 0.004;
  Value gpus;
  gpus.number = 1;
  a.emplace_back("replicas", two);
  a.emplace_back("training.learningRate", lr);
  a.emplace_back("resources.gpusPerReplica", gpus);
  Json got = ApplyAssignment(job, a);
  EXPECT_EQ(got.dump(), R"({"replicas":2,"resources":{"gpusPerReplica":1},"training":{"epochs":3,)"
                        R"("learningRate":0.004}})");
  EXPECT_TRUE(got["replicas"].is_number_integer());
  EXPECT_EQ(job["replicas"], 1);  // the template is unchanged
}

}  // namespace
}  // namespace petname::sweep
