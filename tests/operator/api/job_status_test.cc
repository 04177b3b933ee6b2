#include "operator/api/job_status.h"

#include <gtest/gtest.h>

#include "operator/api/conditions.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

const Json kStatus = Json::parse(R"({
  "phase": "Restarting",
  "conditions": [
    {"type": "Created", "status": "True", "reason": "PodsCreated", "message": "all 2 rank pods were created",
     "lastTransitionTime": "2026-11-23T10:00:00Z"},
    {"type": "Restarting", "status": "True", "reason": "OOMKilled", "message": "rank 1 failed",
     "lastTransitionTime": "2026-11-23T10:05:00Z"}],
  "active": 0, "ready": 0, "succeeded": 0, "failed": 0, "ranks": 2, "restarts": 1,
  "startTime": "2026-11-23T10:00:00Z", "lastRestartTime": "2026-11-23T10:05:00Z",
  "observedGeneration": 3,
  "progress": {"epoch": 2, "epochs": 5, "trainLoss": 2.25, "validationLoss": 2.5,
               "validationAccuracy": 0.4, "samplesPerSecond": 5000,
               "lastCheckpointTime": "2026-11-23T10:04:00Z", "checkpointFailures": 2,
               "updateTime": "2026-11-23T10:04:30Z"},
  "reason": "OOMKilled", "message": "rank 1 failed",
  "modelPath": "/checkpoints/rex/model.safetensors",
  "model": {"claimName": "ckpt", "subPath": "rex/model.safetensors"}
})");

TEST(JobStatusTypesTest, ReadsEveryFieldOfTheCrdSchema) {
  JobStatus s = JobStatusFromJson(kStatus);
  EXPECT_EQ(s.phase, JobPhase::kRestarting);
  ASSERT_EQ(s.conditions.size(), 2u);
  EXPECT_EQ(s.conditions[1].type, "Restarting");
  EXPECT_TRUE(s.conditions[1].status);
  EXPECT_EQ(s.conditions[1].reason, "OOMKilled");
  EXPECT_EQ(s.ranks, 2);
  EXPECT_EQ(s.restarts, 1);
  EXPECT_EQ(s.observed_generation, 3);
  ASSERT_TRUE(s.start_time);
  EXPECT_EQ(*s.last_restart_time - *s.start_time, 300);
  EXPECT_FALSE(s.completion_time);
  ASSERT_TRUE(s.progress);
  EXPECT_EQ(s.progress->epoch, 2);
  EXPECT_EQ(s.progress->samples_per_second, std::optional<double>(5000));
  EXPECT_EQ(s.progress->checkpoint_failures, std::optional<int64_t>(2));
  EXPECT_EQ(s.reason, "OOMKilled");
  EXPECT_EQ(s.message, "rank 1 failed");
  EXPECT_EQ(s.model_path, "/checkpoints/rex/model.safetensors");
  EXPECT_EQ(s.model, std::optional<ModelVolume>(ModelVolume{"ckpt", "rex/model.safetensors"}));
}

TEST(JobStatusTypesTest, WritesWhatItReads) {
  EXPECT_EQ(JobStatusToJson(JobStatusFromJson(kStatus)), kStatus);
}

TEST(JobStatusTypesTest, UnknownOrMissingFieldsReadAsUnset) {
  JobStatus s = JobStatusFromJson(
      {{"phase", "Exploded"}, {"startTime", "yesterday"}, {"restarts", "two"}, {"extra", 1}});
  EXPECT_EQ(s.phase, JobPhase::kUnset);
  EXPECT_FALSE(s.start_time);
  EXPECT_EQ(s.restarts, 0);
  EXPECT_EQ(JobStatusFromJson(nullptr), JobStatus());
  Json written = JobStatusToJson(JobStatus());
  EXPECT_FALSE(written.contains("phase"));
  EXPECT_FALSE(written.contains("startTime"));
  EXPECT_FALSE(written.contains("progress"));
  for (const char* absent : {"reason", "message", "modelPath", "model"}) {
    EXPECT_FALSE(written.contains(absent)) << absent;
  }
}

TEST(JobStatusTypesTest, EveryPhaseHasItsApiName) {
  for (JobPhase p : {JobPhase::kPending, JobPhase::kRunning, JobPhase::kRestarting,
                     JobPhase::kSucceeded, JobPhase::kFailed, JobPhase::kSuspended}) {
    JobStatus s;
    s.phase = p;
    EXPECT_EQ(JobStatusFromJson(JobStatusToJson(s)).phase, p) << PhaseName(p);
  }
  EXPECT_TRUE(IsFinished(JobPhase::kFailed));
  EXPECT_FALSE(IsFinished(JobPhase::kRestarting));
}

TEST(JobStatusTypesTest, PhaseOfAJobObject) {
  EXPECT_EQ(PhaseOf(nlohmann::json::parse(R"({"status": {"phase": "Running", "active": 2}})")),
            JobPhase::kRunning);
  EXPECT_EQ(PhaseOf(nlohmann::json::parse(R"({"status": {"phase": "Bogus"}})")), JobPhase::kUnset);
  EXPECT_EQ(PhaseOf(nlohmann::json::parse(R"({"status": "Running"})")), JobPhase::kUnset);
  EXPECT_EQ(PhaseOf(nlohmann::json::parse(R"({"spec": {}})")), JobPhase::kUnset);
}

TEST(ConditionsTest, TransitionTimeMovesOnlyWhenTheStatusChanges) {
  std::vector<Condition> conds;
  SetCondition(&conds, kRunning, true, "AllRanksRunning", "2/2", 100);
  SetCondition(&conds, kRunning, true, "AllRanksRunning", "2/2 again", 200);
  ASSERT_EQ(conds.size(), 1u);
  EXPECT_EQ(conds[0].last_transition_time, 100);
  EXPECT_EQ(conds[0].message, "2/2 again");
  SetCondition(&conds, kRunning, false, "JobRestarting", "rank 0 failed", 300);
  EXPECT_EQ(conds[0].last_transition_time, 300);
  EXPECT_TRUE(ConditionIs(conds, kRunning, false));
  EXPECT_FALSE(ConditionIs(conds, kCreated, false));
  EXPECT_EQ(FindCondition(conds, kCreated), nullptr);
}

}  // namespace
}  // namespace petname::api
