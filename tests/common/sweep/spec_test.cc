#include "common/sweep/spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace petname::sweep {
namespace {

// `fields` (JSON object members, without braces) after a valid template.
Json Spec(const std::string& fields) {
  return Json::parse(R"({"template": {"replicas": 1}, )" + fields + "}");
}

constexpr const char* kLr =
    R"("parameters": [{"name": "training.learningRate", "values": [0.001]}])";

TEST(SweepSpecTest, AppliesDefaults) {
  SweepSpec s;
  ASSERT_TRUE(SweepSpecFromJson(Spec(kLr), &s).ok());
  EXPECT_EQ(s.job_template, Json::parse(R"({"replicas": 1})"));
  EXPECT_EQ(s.algorithm, Algorithm::kGrid);
  EXPECT_EQ(s.seed, 42);
  EXPECT_EQ(s.parallel_trial_count, 3);
  EXPECT_EQ(s.max_trial_count, 0);
  EXPECT_EQ(s.max_failed_trial_count, 0);
  EXPECT_EQ(s.objective.metric, Metric::kValidationLoss);
  EXPECT_FALSE(s.objective.has_goal);
  EXPECT_FALSE(s.stop_trial_at_goal);
  EXPECT_FALSE(s.median_stopping);
  ASSERT_EQ(s.parameters.size(), 1U);
  EXPECT_EQ(s.parameters[0].name, "training.learningRate");
  EXPECT_FALSE(s.parameters[0].is_range);
  ASSERT_EQ(s.parameters[0].values.size(), 1U);
  EXPECT_EQ(s.parameters[0].values[0].number, 0.001);
}

TEST(SweepSpecTest, ReadsEveryField) {
  SweepSpec s;
  Status st = SweepSpecFromJson(Spec(R"(
    "parameters": [
      {"name": "training.learningRate", "min": 0.0001, "max": 0.01, "scale": "log"},
      {"name": "replicas", "values": [1, 2.0]},
      {"name": "training.precision", "values": ["fp32", "bf16"]},
      {"name": "training.batchSizePerReplica", "min": 1024, "max": 4096, "step": 1024}],
    "algorithm": "random", "seed": 7, "parallelTrialCount": 2, "maxTrialCount": 20,
    "maxFailedTrialCount": 4, "objective": {"metric": "validationAccuracy", "goal": 0.55},
    "stopTrialAtGoal": true, "earlyStopping": {"algorithm": "medianStop", "minTrialsRequired": 5})"),
                                &s);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(s.algorithm, Algorithm::kRandom);
  EXPECT_EQ(s.seed, 7);
  EXPECT_EQ(s.parallel_trial_count, 2);
  EXPECT_EQ(s.max_trial_count, 20);
  EXPECT_EQ(s.max_failed_trial_count, 4);
  EXPECT_EQ(s.objective.metric, Metric::kValidationAccuracy);
  EXPECT_TRUE(s.objective.has_goal);
  EXPECT_EQ(s.objective.goal, 0.55);
  EXPECT_TRUE(s.stop_trial_at_goal);
  EXPECT_TRUE(s.median_stopping);
  EXPECT_EQ(s.median_stopping_min_trials, 5);
  ASSERT_EQ(s.parameters.size(), 4U);
  EXPECT_TRUE(s.parameters[0].is_range);
  EXPECT_EQ(s.parameters[0].scale, Scale::kLog);
  EXPECT_EQ(s.parameters[0].min, 0.0001);
  EXPECT_EQ(s.parameters[0].max, 0.01);
  EXPECT_EQ(s.parameters[1].values[1].ToJson(), Json(2));
  EXPECT_TRUE(s.parameters[2].values[1].is_text);
  EXPECT_EQ(s.parameters[2].values[1].text, "bf16");
  EXPECT_EQ(s.parameters[3].step, 1024);
}

TEST(SweepSpecTest, EarlyStoppingDefaultsToThreeTrials) {
  SweepSpec s;
  ASSERT_TRUE(SweepSpecFromJson(
                  Spec(std::string(kLr) + R"(, "earlyStopping": {"algorithm": "medianStop"})"), &s)
                  .ok());
  EXPECT_TRUE(s.median_stopping);
  EXPECT_EQ(s.median_stopping_min_trials, 3);
}

TEST(SweepSpecTest, AcceptsAGridOfExactlyTheLimit) {
  SweepSpec s;
  Status st = SweepSpecFromJson(Spec(R"("parameters": [
      {"name": "training.warmupSteps", "min": 0, "max": 999, "step": 1}])"),
                                &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

struct BadSpec {
  const char* fields;
  const char* message;
};

TEST(SweepSpecTest, RefusesBadSpecsWithOneLine) {
  const std::vector<BadSpec> cases = {
      {R"("parameters": [{"name": "training.lr", "values": [1]}])",
       "spec.parameters[0].name: unknown parameter \"training.lr\" (known: replicas, "
       "resources.gpusPerReplica, training.batchSizePerReplica, training.epochs, "
       "training.warmupSteps, training.learningRate, training.precision, training.lrSchedule)"},
      {R"("parameters": [{"name": "replicas", "values": [1]}, {"name": "replicas", "values": [2]}])",
       "spec.parameters[1].name: duplicate parameter \"replicas\""},
      {R"("parameters": [{"name": "replicas", "values": []}])",
       "spec.parameters[0].values: must not be empty"},
      {R"("parameters": [{"name": "replicas", "values": [1, "two"]}])",
       "spec.parameters[0].values[1]: \"two\" is not a number"},
      {R"("parameters": [{"name": "training.learningRate", "values": ["0.1"]}])",
       "spec.parameters[0].values[0]: \"0.1\" is not a number"},
      {R"("parameters": [{"name": "replicas", "values": [1.5]}])",
       "spec.parameters[0].values[0]: 1.5 is not an integer"},
      {R"("parameters": [{"name": "training.precision", "values": ["fp16"]}])",
       "spec.parameters[0].values[0]: \"fp16\" is not fp32 or bf16"},
      {R"("parameters": [{"name": "training.lrSchedule", "values": ["step"]}])",
       "spec.parameters[0].values[0]: \"step\" is not constant or cosine"},
      {R"("parameters": [{"name": "training.precision", "min": 1, "max": 2}])",
       "spec.parameters[0]: training.precision takes values, not a range (min, max)"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0.1, "max": 0.01, "step": 0.01}])",
       "spec.parameters[0]: min 0.1 > max 0.01"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0.01, "max": 0.1, "step": 0}])",
       "spec.parameters[0].step: must be > 0"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0.01, "max": 0.1}])",
       "spec.parameters[0].step: required for a grid range"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0, "max": 0.1, "scale": "log"}],
          "algorithm": "random")",
       "spec.parameters[0].min: must be > 0 for scale log"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0.1, "max": 1, "scale": "ln"}],
          "algorithm": "random")",
       "spec.parameters[0].scale: \"ln\" is not linear or log"},
      {R"("parameters": [{"name": "training.epochs", "min": 1, "max": 2.5, "step": 1}])",
       "spec.parameters[0].max: 2.5 is not an integer"},
      {R"("parameters": [{"name": "replicas", "min": 1, "max": 4, "step": 0.5}])",
       "spec.parameters[0].step: 0.5 is not an integer"},
      {R"("parameters": [{"name": "replicas", "values": [1], "min": 1}])",
       "spec.parameters[0]: give either values or min and max"},
      {R"("parameters": [{"name": "replicas", "min": 1}])",
       "spec.parameters[0]: give either values or min and max"},
      {R"("parameters": [{"name": "replicas", "values": [1], "typo": 1}])",
       "spec.parameters[0].typo: unknown field"},
      {R"("parameters": [
          {"name": "training.warmupSteps", "min": 0, "max": 39, "step": 1},
          {"name": "training.batchSizePerReplica", "min": 1, "max": 30, "step": 1}])",
       "spec.parameters: the grid has 1200 trials (at most 1000)"},
      {R"("parameters": [{"name": "training.learningRate", "min": 0, "max": 1, "step": 1e-12}])",
       "spec.parameters: the grid has 1000000000001 trials (at most 1000)"},
      {R"("parameters": [])", "spec.parameters: must be a non-empty list"},
      {R"("seed": 1)", "spec.parameters: must be a non-empty list"},
  };
  for (const BadSpec& c : cases) {
    SweepSpec s;
    Status st = SweepSpecFromJson(Spec(c.fields), &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.fields;
    EXPECT_EQ(st.message(), c.message) << c.fields;
  }
}

struct BadField {
  std::string fields;  // after the valid parameters
  const char* message;
};

TEST(SweepSpecTest, RefusesBadTopLevelFields) {
  const std::vector<BadField> cases = {
      {R"("algorithm": "bayes")", "spec.algorithm: unknown algorithm \"bayes\" (grid or random)"},
      {R"("seed": 1.5)", "spec.seed: must be an integer"},
      {R"("parallelTrialCount": 0)", "spec.parallelTrialCount: must be >= 1"},
      {R"("parallelTrialCount": "3")", "spec.parallelTrialCount: must be an integer"},
      {R"("maxTrialCount": 0)", "spec.maxTrialCount: must be >= 1"},
      {R"("maxTrialCount": 5000)", "spec.maxTrialCount: must be <= 1000"},
      {R"("maxFailedTrialCount": -1)", "spec.maxFailedTrialCount: must be >= 0"},
      {R"("objective": {"metric": "loss"})",
       "spec.objective.metric: unknown metric \"loss\" (validationLoss or validationAccuracy)"},
      {R"("objective": {"metric": "validationAccuracy", "goal": 1.5})",
       "spec.objective.goal: 1.5 is outside validationAccuracy's range [0, 1]"},
      {R"("objective": {"goal": -0.5})",
       "spec.objective.goal: -0.5 is outside validationLoss's range [0, inf)"},
      {R"("objective": {"goal": "low"})", "spec.objective.goal: must be a number"},
      {R"("stopTrialAtGoal": "yes")", "spec.stopTrialAtGoal: must be true or false"},
      {R"("stopTrialAtGoal": true)", "spec.stopTrialAtGoal: needs spec.objective.goal"},
      {R"("earlyStopping": {"algorithm": "hyperband"})",
       "spec.earlyStopping.algorithm: unknown algorithm \"hyperband\" (medianStop)"},
      {R"("earlyStopping": {"algorithm": "medianStop", "minTrialsRequired": 0})",
       "spec.earlyStopping.minTrialsRequired: must be >= 1"},
      {R"("earlyStopping": {})", "spec.earlyStopping.algorithm: required (medianStop)"},
      {R"("maxTrialcount": 4)", "spec.maxTrialcount: unknown field"},
  };
  for (const BadField& c : cases) {
    SweepSpec s;
    Status st = SweepSpecFromJson(Spec(std::string(kLr) + ", " + c.fields), &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.fields;
    EXPECT_EQ(st.message(), c.message) << c.fields;
  }
}

TEST(SweepSpecTest, RefusesAMissingOrWrongTemplate) {
  SweepSpec s;
  EXPECT_EQ(SweepSpecFromJson(Json::parse(R"({"parameters": []})"), &s).message(),
            "spec.template: required (a job spec)");
  EXPECT_EQ(SweepSpecFromJson(Json::parse(R"({"template": 3})"), &s).message(),
            "spec.template: must be an object");
  EXPECT_EQ(SweepSpecFromJson(Json::array(), &s).message(), "spec: must be an object");
}

TEST(SweepSpecTest, LogScaleNeedsPositiveMinOnlyForRandom) {
  SweepSpec s;
  EXPECT_TRUE(SweepSpecFromJson(Spec(R"("parameters": [
      {"name": "training.learningRate", "min": 0, "max": 0.1, "step": 0.05, "scale": "log"}])"),
                                &s)
                  .ok());
}

TEST(SweepValueTest, PrintsTheShortestText) {
  Value v;
  v.number = 0.004;
  EXPECT_EQ(v.ToString(), "0.004");
  EXPECT_EQ(v.ToJson(), Json(0.004));
  v.number = 4096;
  EXPECT_EQ(v.ToString(), "4096");
  EXPECT_TRUE(v.ToJson().is_number_integer());
  v.number = 1.0 / 3;
  EXPECT_EQ(std::stod(v.ToString()), 1.0 / 3);
  Value t;
  t.is_text = true;
  t.text = "bf16";
  EXPECT_EQ(t.ToString(), "bf16");
  EXPECT_EQ(t.ToJson(), Json("bf16"));
  EXPECT_FALSE(t == v);
}

TEST(SweepValueTest, JsonFormReadsBack) {
  for (const Json& j : {Json(0.004), Json(4096), Json("bf16")}) {
    Value v;
    ASSERT_TRUE(Value::FromJson(j, &v)) << j;
    EXPECT_EQ(v.ToJson(), j);
  }
  Value untouched;
  untouched.number = 7;
  EXPECT_FALSE(Value::FromJson(Json::array(), &untouched));
  EXPECT_FALSE(Value::FromJson(Json(true), &untouched));
  EXPECT_EQ(untouched.number, 7);
}

TEST(SweepSpecTest, NamesKindsAndMetrics) {
  EXPECT_EQ(KnownParameters().size(), 8U);
  EXPECT_EQ(KindOf("replicas"), ValueKind::kInteger);
  EXPECT_EQ(KindOf("training.learningRate"), ValueKind::kReal);
  EXPECT_EQ(KindOf("training.precision"), ValueKind::kText);
  EXPECT_STREQ(MetricName(Metric::kValidationLoss), "validationLoss");
  EXPECT_STREQ(MetricName(Metric::kValidationAccuracy), "validationAccuracy");
}

}  // namespace
}  // namespace petname::sweep
