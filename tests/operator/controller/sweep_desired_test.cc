#include "operator/sweeps/sweep_desired.h"

#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "operator/api/job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// A 2 x 2 grid with parallelTrialCount 2 and a loss goal.
api::Sweep TestSweep(const std::string& patch = "{}") {
  Json obj = Json::parse(R"({"apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingSweep",
    "metadata": {"name": "sw", "namespace": "ml", "uid": "sweep-uid", "generation": 1},
    "spec": {"template": {"image": "petname:1", "dataset": {"path": "/data/pets.csv"},
        "checkpoint": {"claimName": "ck", "path": "/ck/"}},
      "parameters": [{"name": "replicas", "values": [1, 2]},
                     {"name": "training.learningRate", "values": [0.001, 0.004]}],
      "parallelTrialCount": 2, "objective": {"metric": "validationLoss", "goal": 1.6},
      "stopTrialAtGoal": true}})");
  obj.merge_patch(Json::parse(patch));
  api::Sweep sw;
  EXPECT_TRUE(api::SweepFromJson(obj, &sw).ok());
  return sw;
}

// Trial job `index` as the API server would hold it, with `status`.
Json Observed(const api::Sweep& sw, int index, const Json& status = Json::object()) {
  sweep::Assignment none;
  Json job = TrialJob(sw, index, none);
  job["status"] = status;
  return job;
}

SweepActions Decide(const api::Sweep& sw, const std::vector<Json>& jobs, int64_t now = 1000) {
  SweepActions actions;
  EXPECT_TRUE(DesiredSweep(sw, jobs, now, &actions).ok());
  return actions;
}

TEST(SweepDesiredTest, TrialsJoinTheSweepsKueueQueue) {
  const api::Sweep sw = TestSweep(R"({"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-a",
    "kueue.x-k8s.io/priority-class": "low", "other": "x"}}})");
  const Json job = Decide(sw, {}).create.at(0);
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "team-a");
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"], "low");
  EXPECT_FALSE(job["metadata"]["labels"].contains("other"));
  EXPECT_FALSE(Decide(TestSweep(), {})
                   .create.at(0)["metadata"]["labels"]
                   .contains("kueue.x-k8s.io/queue-name"));
}

TEST(SweepDesiredTest, StartsParallelTrialCountTrials) {
  const api::Sweep sw = TestSweep();
  SweepActions a = Decide(sw, {});
  ASSERT_EQ(a.create.size(), 2u);
  const Json& job = a.create[0];
  EXPECT_EQ(job["metadata"]["name"], "sw-000");
  EXPECT_EQ(job["kind"], api::kKind);
  EXPECT_EQ(job["metadata"]["labels"][api::kSweepNameLabel], "sw");
  EXPECT_EQ(job["metadata"]["labels"][api::kTrialIndexLabel], "0");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["uid"], "sweep-uid");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(job["spec"]["replicas"], 1);
  EXPECT_EQ(job["spec"]["training"]["learningRate"], 0.001);
  EXPECT_EQ(job["spec"]["training"]["goal"],
            Json({{"metric", "validationLoss"}, {"value", 1.6}, {"stop", true}}));
  EXPECT_EQ(job["spec"]["checkpoint"]["path"], "/ck/");
  EXPECT_EQ(job["spec"]["checkpoint"]["subPath"], "sw-000");
  EXPECT_EQ(job["spec"]["checkpoint"]["claimName"], "ck");
  EXPECT_EQ(a.create[1]["spec"]["training"]["learningRate"], 0.004);
  api::Job parsed;
  EXPECT_TRUE(api::JobFromJson(job, &parsed).ok());
  EXPECT_EQ(api::CheckpointDir(parsed.spec, "sw-000"), "/ck/sw-000");
  EXPECT_EQ(a.status.counts.trials, 2);
  EXPECT_EQ(a.status.counts.pending, 2);
  EXPECT_EQ(a.status.phase, sweep::SweepPhase::kRunning);
  EXPECT_EQ(a.status.start_time, std::optional<int64_t>(1000));
}

// Every trial mounts the whole volume at the template's path and writes under its own directory,
// below the template's subPath when it has one.
TEST(SweepDesiredTest, TrialsWriteUnderTheTemplatesSubPath) {
  const api::Sweep sw = TestSweep(R"({"spec": {"template": {"checkpoint": {"subPath": "grid"}}}})");
  const Json job = Observed(sw, 3);
  EXPECT_EQ(job["spec"]["checkpoint"]["path"], "/ck/");
  EXPECT_EQ(job["spec"]["checkpoint"]["subPath"], "grid/sw-003");
}

TEST(SweepDesiredTest, NeverMoreThanParallelTrialCountUnfinished) {
  api::Sweep sw = TestSweep();
  // Two running: nothing to create.
  SweepActions a = Decide(sw, {Observed(sw, 0, {{"phase", "Running"}}), Observed(sw, 1)});
  EXPECT_TRUE(a.create.empty());
  EXPECT_EQ(a.status.counts.running, 1);
  EXPECT_EQ(a.status.counts.pending, 1);
  // One finished: exactly one more, the next index.
  a = Decide(sw, {Observed(sw, 0, {{"phase", "Succeeded"}}), Observed(sw, 1)});
  ASSERT_EQ(a.create.size(), 1u);
  EXPECT_EQ(a.create[0]["metadata"]["name"], "sw-002");
  // A row of the old status whose job the cache has not seen yet still counts: its create is
  // only repeated (409 if it exists), and no further trial starts.
  sw.status = a.status;
  a = Decide(sw, {Observed(sw, 0, {{"phase", "Succeeded"}}), Observed(sw, 1)});
  ASSERT_EQ(a.create.size(), 1u);
  EXPECT_EQ(a.create[0]["metadata"]["name"], "sw-002");
  EXPECT_EQ(a.status.counts.trials, 3);
}

TEST(SweepDesiredTest, RowsKeepTheBestValuesAndTimesToGoal) {
  api::Sweep sw = TestSweep();
  const Json early = {{"phase", "Running"},
                      {"startTime", "2026-01-01T00:00:00Z"},
                      {"progress",
                       {{"epoch", 2},
                        {"epochs", 10},
                        {"validationLoss", 1.55},
                        {"goalReachedTrainingSeconds", 90.5},
                        {"goalReachedTime", "2026-01-01T00:02:00Z"}}}};
  SweepActions a = Decide(sw, {Observed(sw, 0, early), Observed(sw, 1)});
  ASSERT_GE(a.status.trials.size(), 1u);
  EXPECT_EQ(a.status.trials[0].epochs, 2);
  EXPECT_EQ(a.status.trials[0].best_validation_loss, 1.55);
  EXPECT_EQ(a.status.trials[0].time_to_goal_seconds, 90.5);
  EXPECT_EQ(a.status.trials[0].wall_time_to_goal_seconds, 120);
  EXPECT_EQ(a.status.best_trial, "sw-000");
  // Later the loss is worse and the progress lost its goal fields: nothing recorded is lost.
  sw.status = a.status;
  const Json later = {{"phase", "Succeeded"},
                      {"progress", {{"epoch", 3}, {"epochs", 10}, {"validationLoss", 1.7}}}};
  a = Decide(sw, {Observed(sw, 0, later), Observed(sw, 1)});
  EXPECT_EQ(a.status.trials[0].phase, sweep::TrialPhase::kSucceeded);
  EXPECT_EQ(a.status.trials[0].epochs, 3);
  EXPECT_EQ(a.status.trials[0].best_validation_loss, 1.55);
  EXPECT_EQ(a.status.trials[0].time_to_goal_seconds, 90.5);
  // The trial job deleted later: its row stays.
  sw.status = a.status;
  a = Decide(sw, {Observed(sw, 1)});
  EXPECT_EQ(a.status.trials[0].phase, sweep::TrialPhase::kSucceeded);
  EXPECT_EQ(a.status.trials[0].best_validation_loss, 1.55);
}

TEST(SweepDesiredTest, SucceedsWhenEveryTrialFinished) {
  api::Sweep sw = TestSweep();
  std::vector<Json> jobs;
  for (int i = 0; i < 4; ++i) {
    jobs.push_back(Observed(sw, i,
                            {{"phase", i == 3 ? "Failed" : "Succeeded"},
                             {"progress", {{"epoch", 1}, {"validationLoss", 2.0 - 0.1 * i}}}}));
  }
  SweepActions a = Decide(sw, jobs, 2000);
  EXPECT_TRUE(a.create.empty());
  EXPECT_EQ(a.status.phase, sweep::SweepPhase::kSucceeded);
  EXPECT_EQ(a.status.counts.succeeded, 3);
  EXPECT_EQ(a.status.counts.failed, 1);
  EXPECT_EQ(a.status.best_trial, "sw-003");  // failed, but its loss is the lowest seen
  EXPECT_EQ(a.status.completion_time, std::optional<int64_t>(2000));
  EXPECT_TRUE(api::ConditionIs(a.status.conditions, api::kSucceeded, true));
  EXPECT_TRUE(api::ConditionIs(a.status.conditions, api::kRunning, false));
}

// More than maxFailedTrialCount failures fail the sweep: the trial still running is stopped,
// the Pending one whose job is not seen yet is not created again, and nothing new starts.
TEST(SweepDesiredTest, AFailedSweepStopsItsUnfinishedTrials) {
  api::Sweep sw = TestSweep(R"({"spec": {"parallelTrialCount": 3, "maxFailedTrialCount": 1}})");
  sweep::Trial pending;
  pending.name = "sw-003";
  sw.status.trials = {pending};
  sw.status.history = {{}};
  const SweepActions a =
      Decide(sw, {Observed(sw, 0, {{"phase", "Failed"}}), Observed(sw, 1, {{"phase", "Failed"}}),
                  Observed(sw, 2, {{"phase", "Running"}})});
  EXPECT_TRUE(a.create.empty());
  EXPECT_EQ(a.stop, std::vector<std::string>{"sw-002"});
  ASSERT_EQ(a.status.trials.size(), 4u);
  EXPECT_EQ(a.status.trials[2].phase, sweep::TrialPhase::kStopped);
  EXPECT_EQ(a.status.trials[2].message,
            "stopped: the sweep failed (2 trials failed (maxFailedTrialCount 1))");
  EXPECT_EQ(a.status.trials[3].phase, sweep::TrialPhase::kStopped);
  EXPECT_EQ(a.status.phase, sweep::SweepPhase::kFailed);
  EXPECT_EQ(a.status.counts.stopped, 2);
  EXPECT_TRUE(api::ConditionIs(a.status.conditions, api::kFailed, true));
}

TEST(SweepDesiredTest, IgnoresJobsItDoesNotControl) {
  api::Sweep sw = TestSweep();
  Json foreign = Observed(sw, 0, {{"phase", "Running"}});
  foreign["metadata"]["ownerReferences"][0]["uid"] = "other";
  SweepActions a = Decide(sw, {foreign});
  ASSERT_EQ(a.create.size(), 2u);  // sw-000's create will meet 409 and not be adopted
}

TEST(SweepDesiredTest, MedianStoppingSuspendsALaggingTrial) {
  api::Sweep sw = TestSweep(
      R"({"spec": {"parameters": [{"name": "training.learningRate",
          "values": [0.001, 0.002, 0.003, 0.004]}], "parallelTrialCount": 4,
          "stopTrialAtGoal": false, "earlyStopping": {"algorithm": "medianStop",
          "minTrialsRequired": 2}}})");
  std::vector<Json> jobs;
  const double losses[] = {1.5, 1.6, 1.7, 2.5};
  for (int i = 0; i < 4; ++i) {
    jobs.push_back(Observed(sw, i,
                            {{"phase", i < 3 ? "Succeeded" : "Running"},
                             {"progress", {{"epoch", 2}, {"validationLoss", losses[i]}}}}));
  }
  SweepActions a = Decide(sw, jobs);
  ASSERT_EQ(a.stop, std::vector<std::string>{"sw-003"});
  EXPECT_EQ(a.status.trials[3].phase, sweep::TrialPhase::kStopped);
  // Suspended, it stays Stopped.
  sw.status = a.status;
  jobs[3]["spec"]["runPolicy"]["suspend"] = true;
  a = Decide(sw, jobs);
  EXPECT_TRUE(a.stop.empty());
  EXPECT_EQ(a.status.trials[3].phase, sweep::TrialPhase::kStopped);
  EXPECT_EQ(a.status.counts.stopped, 1);
}

TEST(SweepDesiredTest, MedianStoppingComparesAtTheSameEpochFromTheHistory) {
  api::Sweep sw = TestSweep(
      R"({"spec": {"parameters": [{"name": "training.learningRate",
          "values": [0.001, 0.002, 0.003]}], "parallelTrialCount": 3,
          "stopTrialAtGoal": false, "earlyStopping": {"algorithm": "medianStop",
          "minTrialsRequired": 2}}})");
  auto at = [&](int index, int epoch, double loss) {
    return Observed(
        sw, index,
        {{"phase", "Running"}, {"progress", {{"epoch", epoch}, {"validationLoss", loss}}}});
  };
  SweepActions a = Decide(sw, {at(0, 1, 1.9), at(1, 1, 2.0), Observed(sw, 2)});
  EXPECT_TRUE(a.stop.empty());
  sw.status = a.status;
  a = Decide(sw, {at(0, 3, 1.5), at(1, 3, 1.6), Observed(sw, 2)});
  EXPECT_TRUE(a.stop.empty());
  ASSERT_EQ(a.status.history[0].size(), 2u);
  EXPECT_EQ(a.status.history[0][0].epoch, 1);
  EXPECT_EQ(a.status.history[0][1].validation_loss, 1.5);
  // Trial 2 after epoch 1 is behind the others' epoch-1 values: stopped, though they moved on.
  sw.status = a.status;
  a = Decide(sw, {at(0, 3, 1.5), at(1, 3, 1.6), at(2, 1, 2.5)});
  EXPECT_EQ(a.stop, std::vector<std::string>{"sw-002"});
  // Trial 2 after epoch 1 ahead of them (1.8 < median of 1.9 and 2.0): it runs on.
  sw.status.history[2].clear();
  a = Decide(sw, {at(0, 3, 1.5), at(1, 3, 1.6), at(2, 1, 1.8)});
  EXPECT_TRUE(a.stop.empty());
}

TEST(SweepPodsTest, PeakIsTheReplicasOfTheLargestParallelTrials) {
  // replicas varied over [1, 2] x two learning rates: trials of 1, 1, 2, 2 pods; 2 at a time.
  const api::Sweep sw = TestSweep();
  std::vector<sweep::Assignment> assignments;
  ASSERT_TRUE(sweep::ExpandTrials(sw.spec, &assignments).ok());
  EXPECT_EQ(PeakTrialPods(sw, assignments), 4);
  EXPECT_TRUE(CheckSweepPods(sw, 4).ok());
  Status s = CheckSweepPods(sw, 3);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("may run 4 pods at once, more than the 3"), std::string::npos)
      << s.message();
}

TEST(SweepPodsTest, TemplateReplicasWhenNotVaried) {
  const api::Sweep sw = TestSweep(R"({"spec": {"template": {"replicas": 300},
      "parameters": [{"name": "training.learningRate", "values": [0.001, 0.002, 0.003]}],
      "parallelTrialCount": 5}})");
  std::vector<sweep::Assignment> assignments;
  ASSERT_TRUE(sweep::ExpandTrials(sw.spec, &assignments).ok());
  EXPECT_EQ(PeakTrialPods(sw, assignments), 900);  // 3 trials, all at once
  EXPECT_FALSE(CheckSweepPods(sw, kDefaultMaxPodsPerSweep).ok());
  EXPECT_TRUE(CheckSweepPods(TestSweep(), kDefaultMaxPodsPerSweep).ok());
}

}  // namespace
}  // namespace petname::controller
