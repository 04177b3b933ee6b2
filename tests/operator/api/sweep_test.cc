#include "operator/api/sweep.h"

#include <gtest/gtest.h>

#include <cmath>

namespace petname::api {
namespace {

using Json = nlohmann::json;

Json SweepObject() {
  return Json::parse(R"({"apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingSweep",
    "metadata": {"name": "seed-grid", "namespace": "ml", "uid": "sweep-uid", "generation": 2},
    "spec": {"template": {"image": "petname:1", "dataset": {"path": "/data/pets.csv"}},
      "parameters": [{"name": "training.learningRate", "values": [0.001, 0.004]}],
      "parallelTrialCount": 2, "objective": {"metric": "validationLoss", "goal": 1.6}}})");
}

TEST(SweepTest, ParsesTheSpecWithTheCore) {
  Sweep sw;
  ASSERT_TRUE(SweepFromJson(SweepObject(), &sw).ok());
  EXPECT_EQ(sw.name, "seed-grid");
  EXPECT_EQ(sw.ns, "ml");
  EXPECT_EQ(sw.uid, "sweep-uid");
  EXPECT_EQ(sw.generation, 2);
  EXPECT_EQ(sw.spec.parallel_trial_count, 2);
  ASSERT_EQ(sw.spec.parameters.size(), 1u);
  EXPECT_TRUE(sw.spec.objective.has_goal);
  EXPECT_EQ(sw.status.phase, sweep::SweepPhase::kCreated);
}

TEST(SweepTest, RefusesWithTheCoresWords) {
  Json obj = SweepObject();
  obj["spec"]["parameters"][0]["name"] = "training.lr";
  Sweep sw;
  Status s = SweepFromJson(obj, &sw);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sweep seed-grid: spec.parameters[0].name: unknown parameter"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(SweepFromJson(Json::array(), &sw).ok());
  obj = SweepObject();
  obj.erase("spec");
  EXPECT_FALSE(SweepFromJson(obj, &sw).ok());
}

TEST(SweepTest, StatusRoundTrips) {
  SweepStatus st;
  st.phase = sweep::SweepPhase::kRunning;
  st.conditions.push_back({"Running", true, "TrialsRunning", "2 running", 1795000000});
  st.counts.trials = 2;
  st.counts.running = 1;
  st.counts.succeeded = 1;
  st.best_trial = "seed-grid-000";
  sweep::Trial t;
  t.name = "seed-grid-000";
  sweep::Value lr;
  lr.number = 0.004;
  t.parameters = {{"training.learningRate", lr}};
  t.phase = sweep::TrialPhase::kSucceeded;
  t.epochs = 3;
  t.best_validation_loss = 1.55;
  t.time_to_goal_seconds = 120.5;
  t.wall_time_to_goal_seconds = 150;
  st.trials.push_back(t);
  sweep::EpochPoint point;
  point.epoch = 1;
  point.validation_loss = 1.7;
  st.history.push_back({point});
  st.start_time = 1795000000;
  st.observed_generation = 2;
  const Json j = SweepStatusToJson(st);
  EXPECT_EQ(j["phase"], "Running");
  EXPECT_EQ(j["trialsSucceeded"], 1);
  EXPECT_EQ(j["trialStatuses"][0]["parameters"]["training.learningRate"], 0.004);
  EXPECT_FALSE(j["trialStatuses"][0].contains("bestValidationAccuracy"));  // NaN: left out
  const SweepStatus back = SweepStatusFromJson(j);
  EXPECT_EQ(back.phase, st.phase);
  EXPECT_EQ(back.conditions, st.conditions);
  EXPECT_EQ(back.counts.running, 1);
  EXPECT_EQ(back.best_trial, st.best_trial);
  ASSERT_EQ(back.trials.size(), 1u);
  EXPECT_EQ(back.trials[0].phase, sweep::TrialPhase::kSucceeded);
  EXPECT_EQ(back.trials[0].parameters, t.parameters);
  EXPECT_EQ(back.trials[0].best_validation_loss, 1.55);
  EXPECT_TRUE(std::isnan(back.trials[0].best_validation_accuracy));
  EXPECT_EQ(back.trials[0].time_to_goal_seconds, 120.5);
  ASSERT_EQ(back.history.size(), 1u);
  ASSERT_EQ(back.history[0].size(), 1u);
  EXPECT_EQ(back.history[0][0].epoch, 1);
  EXPECT_EQ(back.history[0][0].validation_loss, 1.7);
  EXPECT_TRUE(std::isnan(back.history[0][0].validation_accuracy));
  EXPECT_EQ(back.start_time, st.start_time);
  EXPECT_FALSE(back.completion_time);
  EXPECT_EQ(back.observed_generation, 2);
  EXPECT_EQ(SweepStatusFromJson(Json("x")).phase, sweep::SweepPhase::kCreated);
}

}  // namespace
}  // namespace petname::api
