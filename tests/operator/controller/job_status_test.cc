#include "operator/jobs/lifecycle.h"

#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "operator/jobs/gang_restart.h"
#include "operator/jobs/rank_logs.h"
#include "operator/kube/time.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr int64_t kT0 = 1'800'000'000;  // an arbitrary "now"

std::string CondStatus(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c == nullptr ? "<none>" : c->status ? "True" : "False";
}

std::string CondReason(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? c->reason : "<none>";
}

std::string CondMessage(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? c->message : "<none>";
}

std::vector<Json> Pods(const std::vector<std::string>& phases, int generation = 0) {
  std::vector<Json> pods;
  for (size_t i = 0; i < phases.size(); ++i) {
    Json pod = TestPod("rex-rank-" + std::to_string(i), "job-uid", phases[i], true);
    pod["metadata"]["labels"] = {{"petname.dev/rank", std::to_string(i)},
                                 {"petname.dev/restart-generation", std::to_string(generation)}};
    pods.push_back(pod);
  }
  return pods;
}

// Marks pod `rank` Failed with the trainer container terminated by `exit_code`/`reason`.
void Terminate(std::vector<Json>* pods, int rank, int exit_code, const std::string& reason) {
  Json& pod = (*pods)[rank];
  pod["status"]["phase"] = "Failed";
  pod["status"]["containerStatuses"] = {
      {{"name", "trainer"},
       {"state", {{"terminated", {{"exitCode", exit_code}, {"reason", reason}}}}}}};
}

std::vector<api::ObservedPod> Observe(const std::vector<Json>& pods) {
  std::vector<api::ObservedPod> observed;
  for (const Json& pod : pods) observed.push_back(api::PodFromJson(pod));
  return observed;
}

Plan Step(api::Job* job, const std::vector<Json>& pods, int64_t now,
          PodGroupState group = PodGroupState::kNotWanted) {
  Plan p = ComputeStatus(*job, Observe(pods), group, now);
  job->status = p.status;
  return p;
}

bool HasEvent(const Plan& p, const std::string& reason) {
  for (const JobEvent& e : p.events) {
    if (e.reason == reason) return true;
  }
  return false;
}

TEST(JobStatusTest, PendingUntilEveryRankRuns) {
  api::Job job = TestJob(2);
  Plan p = Step(&job, {}, kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.status.start_time, std::optional<int64_t>(kT0));
  EXPECT_EQ(p.status.observed_generation, 1);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(CondStatus(p.status, "Created"), "<none>");
  p = Step(&job, Pods({"Running", "Pending"}), kT0 + 1);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.status.active, 2);
  EXPECT_EQ(p.status.ready, 1);
  EXPECT_EQ(CondStatus(p.status, "Created"), "True");
  EXPECT_TRUE(HasEvent(p, "Created"));
}

TEST(JobStatusTest, RunningThenSucceeded) {
  api::Job job = TestJob(2);
  Step(&job, Pods({"Running", "Running"}), kT0);
  EXPECT_EQ(job.status.phase, api::JobPhase::kRunning);
  EXPECT_EQ(CondStatus(job.status, "Running"), "True");
  Step(&job, Pods({"Succeeded", "Running"}), kT0 + 1);
  EXPECT_EQ(job.status.phase, api::JobPhase::kRunning);
  Plan p = Step(&job, Pods({"Succeeded", "Succeeded"}), kT0 + 2);
  EXPECT_EQ(job.status.phase, api::JobPhase::kSucceeded);
  EXPECT_EQ(job.status.succeeded, 2);
  EXPECT_EQ(job.status.active, 0);
  EXPECT_EQ(job.status.completion_time, std::optional<int64_t>(kT0 + 2));
  EXPECT_EQ(CondStatus(job.status, "Succeeded"), "True");
  EXPECT_EQ(CondStatus(job.status, "Running"), "False");
  EXPECT_TRUE(HasEvent(p, "Succeeded"));
  EXPECT_EQ(p.pods, PodAction::kCleanupRunning);
}

TEST(JobStatusTest, NeverFailsTheJobForGood) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"restartPolicy": "Never"}}})");
  std::vector<Json> pods = Pods({"Running", "Running"});
  Terminate(&pods, 1, 137, "OOMKilled");
  Plan p = Step(&job, pods, kT0);
  EXPECT_EQ(job.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(job.status.failed, 1);
  EXPECT_EQ(CondReason(job.status, "Failed"), "RankFailed");
  EXPECT_NE(CondMessage(job.status, "Failed").find("rank 1"), std::string::npos);
  EXPECT_NE(CondMessage(job.status, "Failed").find("exit code 137"), std::string::npos);
  EXPECT_TRUE(HasEvent(p, "RankFailed"));
  EXPECT_EQ(p.pods, PodAction::kCleanupRunning);
  Step(&job, Pods({"Succeeded", "Succeeded"}), kT0 + 5);
  EXPECT_EQ(job.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(job.status.completion_time, std::optional<int64_t>(kT0));
}

TEST(JobStatusTest, CountsPodsAndRanks) {
  api::Job job = TestJob(2, R"({"spec": {"resources": {"processesPerReplica": 4}}})");
  Plan p = Step(&job, Pods({"Running", "Running"}), kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kRunning);
  EXPECT_EQ(p.status.active, 2);  // pods
  EXPECT_EQ(p.status.ready, 2);
  EXPECT_EQ(p.status.ranks, 8);  // world size
  api::Job one = TestJob(3);
  EXPECT_EQ(Step(&one, {}, kT0).status.ranks, 3);
}

TEST(JobStatusTest, AFailedPodOfSeveralProcessesNamesItsRanks) {
  api::Job job = TestJob(3, R"({"spec": {"resources": {"processesPerReplica": 2}}})");
  std::vector<Json> pods = Pods({"Running", "Running", "Running"});
  Terminate(&pods, 1, 3, "Error");
  Step(&job, pods, kT0);
  EXPECT_EQ(job.status.phase, api::JobPhase::kRestarting);
  const std::string message = CondMessage(job.status, "Restarting");
  EXPECT_EQ(message.rfind("pod rex-rank-1 (ranks 2..3) failed: exit code 3 (Error)", 0), 0u)
      << message;
}

// The Restarting condition and event name the failed ranks' log of the attempt that failed.
TEST(JobStatusTest, ARestartSaysWhereTheFailedRanksLogIsKept) {
  api::Job job = TestJob(2, R"({"spec": {"checkpoint": {"claimName": "ckpt"}}})");
  std::vector<Json> pods = Pods({"Running", "Running"});
  Terminate(&pods, 1, 1, "Error");
  Plan p = Step(&job, pods, kT0);
  ASSERT_EQ(p.status.phase, api::JobPhase::kRestarting);
  const std::string hint =
      "rank 1's log of attempt 0: /checkpoints/rex/logs/attempt-0/rank-1.log on claim ckpt "
      "(petname logs --checkpoint-dir /checkpoints/rex --attempt 0 --rank 1)";
  EXPECT_NE(CondMessage(p.status, "Restarting").find(hint), std::string::npos)
      << CondMessage(p.status, "Restarting");
  bool said = false;
  for (const JobEvent& e : p.events) {
    said = said || (e.reason == "Restarting" && e.message.find(hint) != std::string::npos);
  }
  EXPECT_TRUE(said);

  // After one restart, a failure is attempt 1's.
  api::Job again = TestJob(2, R"({"spec": {"checkpoint": {"claimName": "ckpt"}}})");
  again.status.restarts = 1;
  pods = Pods({"Running", "Running"}, 1);
  Step(&again, pods, kT0);
  Terminate(&pods, 0, 1, "Error");
  p = Step(&again, pods, kT0 + 1);
  EXPECT_NE(CondMessage(p.status, "Restarting")
                .find("rank 0's log of attempt 1: /checkpoints/rex/logs/attempt-1/rank-0.log"),
            std::string::npos)
      << CondMessage(p.status, "Restarting");
}

TEST(JobStatusTest, TheLogHintNamesAPodsRanksAndAnEmptyDirsLoss) {
  api::Job procs = TestJob(2, R"({"spec": {"checkpoint": {"claimName": "ckpt"},
    "resources": {"processesPerReplica": 2},
    "env": [{"name": "PETNAME_LOG_DIR", "value": "/logs/rex"}]}})");
  RankFailure failure;
  failure.rank = 1;
  EXPECT_EQ(RankLogHint(procs, failure, 3),
            "ranks 2 to 3' logs of attempt 3: /logs/rex/attempt-3/rank-2.log .. rank-3.log "
            "(petname logs --log-dir /logs/rex --attempt 3 --rank 2)");
  api::Job empty_dir = TestJob(2);
  EXPECT_EQ(RankLogHint(empty_dir, failure, 0),
            "rank 1's log of attempt 0 was kept at /checkpoints/rex/logs/attempt-0/rank-1.log in "
            "the pod's emptyDir and is gone with it (set checkpoint.claimName to keep it)");
  failure.init_container = "fetch-data";
  EXPECT_EQ(RankLogHint(empty_dir, failure, 0), "");
}

struct PolicyRow {
  const char* policy;
  int exit_code;           // -1: no container status
  const char* pod_reason;  // status.reason of the pod ("" none)
  bool disruption_condition;
  bool restarts;
};

class PolicyTest : public ::testing::TestWithParam<PolicyRow> {};

TEST_P(PolicyTest, RestartsOrFails) {
  const PolicyRow& row = GetParam();
  api::Job job = TestJob(
      2, std::string(R"({"spec": {"runPolicy": {"restartPolicy": ")") + row.policy + R"("}}})");
  std::vector<Json> pods = Pods({"Running", "Running"});
  if (row.exit_code >= 0) {
    Terminate(&pods, 0, row.exit_code, row.exit_code >= 128 ? "OOMKilled" : "Error");
  } else {
    pods[0]["status"]["phase"] = "Failed";
  }
  if (*row.pod_reason != '\0') pods[0]["status"]["reason"] = row.pod_reason;
  if (row.disruption_condition) {
    pods[0]["status"]["conditions"].push_back({{"type", "DisruptionTarget"}, {"status", "True"}});
  }
  Plan p = Step(&job, pods, kT0);
  if (row.restarts) {
    EXPECT_EQ(p.status.phase, api::JobPhase::kRestarting);
    EXPECT_EQ(p.status.restarts, 1);
    EXPECT_EQ(p.pods, PodAction::kStop);
    EXPECT_EQ(CondStatus(p.status, "Restarting"), "True");
    EXPECT_NE(CondMessage(p.status, "Restarting").find("rank 0"), std::string::npos);
    EXPECT_TRUE(HasEvent(p, "Restarting"));
  } else {
    EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
    EXPECT_EQ(CondReason(p.status, "Failed"),
              row.exit_code == 73 ? "CheckpointDirUnusable" : "RankFailed");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PolicyTest,
    ::testing::Values(
        PolicyRow{"OnFailure", 1, "", false, true}, PolicyRow{"OnFailure", 137, "", false, true},
        PolicyRow{"Never", 137, "", false, false}, PolicyRow{"Never", -1, "Evicted", false, false},
        PolicyRow{"ExitCode", 1, "", false, false}, PolicyRow{"ExitCode", 127, "", false, false},
        PolicyRow{"ExitCode", 128, "", false, true}, PolicyRow{"ExitCode", 137, "", false, true},
        PolicyRow{"ExitCode", 143, "", false, true},
        PolicyRow{"ExitCode", -1, "Evicted", false, true},
        PolicyRow{"ExitCode", -1, "NodeLost", false, true},
        PolicyRow{"ExitCode", 1, "", true, true}, PolicyRow{"ExitCode", -1, "", false, true},
        // 73: the checkpoint directory is unusable.
        PolicyRow{"OnFailure", 73, "", false, false}, PolicyRow{"ExitCode", 73, "", false, false},
        PolicyRow{"Never", 73, "", false, false}, PolicyRow{"OnFailure", 73, "", true, true}));

TEST(JobStatusTest, UnusableCheckpointDirFailsAtOnceWithTheTrainersMessage) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"restartPolicy": "OnFailure"}}})");
  std::vector<Json> pods = Pods({"Running", "Running"});
  Terminate(&pods, 0, 73, "Error");
  // The log tail of a pod of two processes: the rank's error line, then the launcher's.
  pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]["message"] =
      "launcher: ranks 0..1 of 4, 1 intra-op thread each\n"
      "[rank 0] petname: error: checkpoint directory unusable: cannot create a staging directory "
      "in /checkpoints: Read-only file system\n"
      "launcher: rank 0 exited with code 73; stopping the others\n";
  Plan p = Step(&job, pods, kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(p.status.restarts, 0);
  EXPECT_EQ(CondReason(p.status, "Failed"), "CheckpointDirUnusable");
  const std::string message = CondMessage(p.status, "Failed");
  EXPECT_EQ(message.rfind("rank 0 (pod rex-rank-0) failed: exit code 73 (Error)", 0), 0u)
      << message;
  EXPECT_NE(message.find(": [rank 0] petname: error: checkpoint directory unusable: cannot create "
                         "a staging directory in /checkpoints: Read-only file system"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("launcher:"), std::string::npos) << message;
  EXPECT_NE(message.find("not retried"), std::string::npos) << message;
}

TEST(JobStatusTest, GangRestartWaitsForOldPodsAndBackoff) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"restartBackoffSeconds": 10}}})");
  std::vector<Json> pods = Pods({"Running", "Running"});
  Terminate(&pods, 1, 1, "Error");
  Plan p = Step(&job, pods, kT0);
  EXPECT_EQ(p.status.last_restart_time, std::optional<int64_t>(kT0));
  EXPECT_EQ(p.requeue_after, 10);
  // Old pods still there (generation 0): keep stopping them, nothing is counted.
  p = Step(&job, pods, kT0 + 1);
  EXPECT_EQ(p.status.phase, api::JobPhase::kRestarting);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.status.failed, 0);
  EXPECT_EQ(p.status.restarts, 1);
  // Gone, but the backoff has not passed.
  p = Step(&job, {}, kT0 + 4);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.requeue_after, 6);
  // Backoff passed: recreate generation 1.
  p = Step(&job, {}, kT0 + 10);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(p.status.phase, api::JobPhase::kRestarting);
  p = Step(&job, Pods({"Running", "Running"}, 1), kT0 + 11);
  EXPECT_EQ(p.status.phase, api::JobPhase::kRunning);
  EXPECT_EQ(CondStatus(p.status, "Restarting"), "False");
  EXPECT_EQ(CondReason(p.status, "Restarting"), "Restarted");
  EXPECT_EQ(p.status.restarts, 1);
}

TEST(JobStatusTest, RestartDelayDoublesAndIsCapped) {
  api::Job job = TestJob(1, R"({"spec": {"runPolicy": {"restartBackoffSeconds": 10}}})");
  EXPECT_EQ(RestartDelaySeconds(job.spec, 1), 10);
  EXPECT_EQ(RestartDelaySeconds(job.spec, 2), 20);
  EXPECT_EQ(RestartDelaySeconds(job.spec, 3), 40);
  EXPECT_EQ(RestartDelaySeconds(job.spec, 10), 300);
  EXPECT_EQ(RestartDelaySeconds(job.spec, 1000), 300);
}

TEST(JobStatusTest, BackoffLimitExceeded) {
  api::Job job =
      TestJob(1, R"({"spec": {"runPolicy": {"backoffLimit": 1, "restartBackoffSeconds": 0}}})");
  std::vector<Json> pods = Pods({"Running"});
  Terminate(&pods, 0, 137, "OOMKilled");
  Step(&job, pods, kT0);
  EXPECT_EQ(job.status.restarts, 1);
  std::vector<Json> again = Pods({"Running"}, 1);
  Terminate(&again, 0, 139, "Error");
  Plan p = Step(&job, again, kT0 + 1);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(CondReason(p.status, "Failed"), "BackoffLimitExceeded");
  EXPECT_NE(CondMessage(p.status, "Failed").find("exit code 139"), std::string::npos);
  EXPECT_TRUE(HasEvent(p, "BackoffLimitExceeded"));
}

TEST(JobStatusTest, DeadlineExceeded) {
  api::Job job = TestJob(1, R"({"spec": {"runPolicy": {"activeDeadlineSeconds": 60,
    "cleanPodPolicy": "None"}}})");
  Plan p = Step(&job, Pods({"Running"}), kT0);
  EXPECT_EQ(p.requeue_after, 60);
  p = Step(&job, Pods({"Running"}), kT0 + 59);
  EXPECT_EQ(p.status.phase, api::JobPhase::kRunning);
  p = Step(&job, Pods({"Running"}), kT0 + 60);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(CondReason(p.status, "Failed"), "DeadlineExceeded");
  EXPECT_EQ(p.pods, PodAction::kCleanupRunning);  // even with cleanPodPolicy None
}

TEST(JobStatusTest, TtlAfterFinished) {
  api::Job job = TestJob(1, R"({"spec": {"runPolicy": {"ttlSecondsAfterFinished": 30}}})");
  Plan p = Step(&job, Pods({"Succeeded"}), kT0);
  EXPECT_FALSE(p.delete_job);
  EXPECT_EQ(p.requeue_after, 30);
  p = Step(&job, Pods({"Succeeded"}), kT0 + 29);
  EXPECT_FALSE(p.delete_job);
  p = Step(&job, Pods({"Succeeded"}), kT0 + 30);
  EXPECT_TRUE(p.delete_job);
}

TEST(JobStatusTest, CleanPodPolicy) {
  for (auto [policy, action] :
       {std::pair{"Running", PodAction::kCleanupRunning}, std::pair{"All", PodAction::kCleanupAll},
        std::pair{"None", PodAction::kKeep}}) {
    api::Job job = TestJob(
        1, std::string(R"({"spec": {"runPolicy": {"cleanPodPolicy": ")") + policy + R"("}}})");
    EXPECT_EQ(Step(&job, Pods({"Succeeded"}), kT0).pods, action) << policy;
  }
}

TEST(JobStatusTest, SuspendAndResume) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"activeDeadlineSeconds": 100}}})");
  Step(&job, Pods({"Running", "Running"}), kT0);
  job.spec.suspend = true;
  Plan p = Step(&job, Pods({"Running", "Running"}), kT0 + 10);
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(CondStatus(p.status, "Suspended"), "True");
  EXPECT_TRUE(HasEvent(p, "Suspended"));
  p = Step(&job, {}, kT0 + 500);  // no deadline while suspended
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  job.spec.suspend = false;
  p = Step(&job, {}, kT0 + 600);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(CondStatus(p.status, "Suspended"), "False");
  EXPECT_EQ(CondReason(p.status, "Suspended"), "Resumed");
  EXPECT_EQ(p.status.start_time, std::optional<int64_t>(kT0 + 600));
  EXPECT_TRUE(HasEvent(p, "Resumed"));
}

TEST(JobStatusTest, UnschedulableAfterTimeout) {
  api::Job job = TestJob(2, R"({"spec": {"scheduling": {"unschedulableAfterSeconds": 30}}})");
  std::vector<Json> pods = Pods({"Running", "Pending"});
  pods[1]["status"]["conditions"] = {{{"type", "PodScheduled"},
                                      {"status", "False"},
                                      {"reason", "Unschedulable"},
                                      {"message", "0/3 nodes are available"},
                                      {"lastTransitionTime", kube::FormatTime(kT0)}}};
  Plan p = Step(&job, pods, kT0 + 10);
  EXPECT_EQ(CondStatus(p.status, "PodsScheduled"), "<none>");
  EXPECT_EQ(p.requeue_after, 20);
  p = Step(&job, pods, kT0 + 30);
  EXPECT_EQ(CondStatus(p.status, "PodsScheduled"), "False");
  EXPECT_EQ(CondReason(p.status, "PodsScheduled"), "Unschedulable");
  EXPECT_NE(CondMessage(p.status, "PodsScheduled").find("0/3 nodes"), std::string::npos);
  EXPECT_TRUE(HasEvent(p, "Unschedulable"));
  p = Step(&job, Pods({"Running", "Running"}), kT0 + 40);
  EXPECT_EQ(CondStatus(p.status, "PodsScheduled"), "True");
}

TEST(JobStatusTest, GangSchedulingUnavailable) {
  api::Job job = TestJob(2, R"({"spec": {"scheduling": {"gang": {"enabled": true}}}})");
  Plan p = Step(&job, {}, kT0, PodGroupState::kUnavailable);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(CondReason(p.status, "GangScheduling"), "GangSchedulingUnavailable");
  EXPECT_GT(p.requeue_after, 0);
  EXPECT_TRUE(HasEvent(p, "GangSchedulingUnavailable"));
  p = Step(&job, {}, kT0 + 30, PodGroupState::kMissing);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(CondStatus(p.status, "GangScheduling"), "True");
}

TEST(JobStatusTest, StableStatusNeedsNoWrite) {
  api::Job job = TestJob(1);
  Step(&job, Pods({"Running"}), kT0);
  Plan p = ComputeStatus(job, Observe(Pods({"Running"})), PodGroupState::kNotWanted, kT0 + 5);
  EXPECT_EQ(p.status, job.status);
  EXPECT_TRUE(p.events.empty());
}

TEST(JobStatusTest, TerminatingAndOldGenerationPodsAreNotCounted) {
  api::Job job = TestJob(1);
  std::vector<Json> pods = Pods({"Running"});
  pods[0]["metadata"]["deletionTimestamp"] = "2027-01-01T00:00:00Z";
  Plan p = Step(&job, pods, kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.status.active, 0);
  p = Step(&job, Pods({"Failed"}, 7), kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.status.failed, 0);
}

TEST(JobStatusTest, APodTemplateThatSetsOperatorFieldsFailsTheJob) {
  api::Job job = TestJob(2, R"({"spec": {"template": {"spec": {
    "containers": [{"name": "trainer", "image": "other"}]}}}})");
  Plan p = Step(&job, {}, kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(CondStatus(p.status, "Failed"), "True");
  EXPECT_EQ(CondReason(p.status, "Failed"), "InvalidSpec");
  EXPECT_NE(CondMessage(p.status, "Failed")
                .find(R"(spec.template.spec.containers["trainer"].image is the operator's)"),
            std::string::npos)
      << CondMessage(p.status, "Failed");
  EXPECT_TRUE(HasEvent(p, "InvalidSpec"));
  EXPECT_NE(p.pods, PodAction::kRun);
  EXPECT_TRUE(Desired(job, p.pods).pods.empty());
  p = Step(&job, {}, kT0 + 5);  // final: no second event, still no pods
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_TRUE(p.events.empty());
  EXPECT_TRUE(Desired(job, p.pods).pods.empty());
}

// A job stored before the CRD refused such names: its spec.env could replace the job's identity
// or empty its rendezvous secret (the last duplicate wins), so it runs no pod at all.
TEST(JobStatusTest, ASpecEnvThatSetsTheJobsIdentityOrSecretFailsTheJob) {
  api::Job job = TestJob(2, R"({"spec": {"env": [{"name": "PETNAME_JOB_UID", "value": ""},
    {"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "PETNAME_RENDEZVOUS_SECRET", "value": ""}]}})");
  Plan p = Step(&job, {}, kT0);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(CondReason(p.status, "Failed"), "InvalidSpec");
  EXPECT_NE(CondMessage(p.status, "Failed")
                .find(R"(spec.env sets "PETNAME_JOB_UID", "PETNAME_RENDEZVOUS_SECRET", which )"),
            std::string::npos)
      << CondMessage(p.status, "Failed");
  EXPECT_TRUE(HasEvent(p, "InvalidSpec"));
  EXPECT_TRUE(Desired(job, p.pods).pods.empty());
}

}  // namespace
}  // namespace petname::controller
