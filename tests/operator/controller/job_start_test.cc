// ComputeStatus on pods that cannot start (PodsReady, start-error timeout), on where checkpoints
// and the model go (CheckpointsPersistent, status.modelPath) and on status.reason.
#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "operator/jobs/lifecycle.h"
#include "operator/jobs/rank_pod.h"
#include "operator/kube/time.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr int64_t kT0 = 1'800'000'000;

// Rank pod `rank` of generation 0, created at kT0, in `phase` (Ready when Running).
Json RankPod(int rank, const std::string& phase) {
  Json pod = TestPod("rex-rank-" + std::to_string(rank), "job-uid", phase, phase == "Running");
  pod["metadata"]["labels"] = {{"petname.dev/rank", std::to_string(rank)},
                               {"petname.dev/restart-generation", "0"}};
  pod["metadata"]["creationTimestamp"] = kube::FormatTime(kT0);
  return pod;
}

Json WaitingPod(int rank, const std::string& reason, const std::string& message) {
  Json pod = RankPod(rank, "Pending");
  pod["status"]["containerStatuses"] = {
      {{"name", "trainer"},
       {"image", "localhost/petname:dev"},
       {"state", {{"waiting", {{"reason", reason}, {"message", message}}}}}}};
  return pod;
}

Json UnschedulablePod(int rank) {
  Json pod = RankPod(rank, "Pending");
  pod["status"]["conditions"] = {{{"type", "PodScheduled"},
                                  {"status", "False"},
                                  {"reason", "Unschedulable"},
                                  {"message", "0/1 nodes are available: 1 Insufficient cpu."},
                                  {"lastTransitionTime", kube::FormatTime(kT0)}}};
  return pod;
}

Plan Step(api::Job* job, const std::vector<Json>& pods, int64_t now) {
  std::vector<api::ObservedPod> observed;
  for (const Json& pod : pods) observed.push_back(api::PodFromJson(pod));
  Plan p = ComputeStatus(*job, observed, PodGroupState::kNotWanted, now);
  job->status = p.status;
  return p;
}

const api::Condition& Cond(const api::JobStatus& status, const std::string& type) {
  static const api::Condition kNone{"<none>", false, "<none>", "<none>", 0};
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? *c : kNone;
}

int Events(const Plan& p, const std::string& reason) {
  int n = 0;
  for (const JobEvent& e : p.events) n += e.reason == reason ? 1 : 0;
  return n;
}

const char kBackOff[] = "Back-off pulling image \"localhost/petname:dev\"";

TEST(JobStartTest, AnImagePullErrorShowsAtOnceAndFailsTheJobAfterTheTimeout) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"startErrorTimeoutSeconds": 120}}})");
  Step(&job, {RankPod(0, "Pending"), RankPod(1, "Pending")}, kT0);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "PodsStarting");
  EXPECT_EQ(job.status.reason, "");

  // The first pass that sees the error reports it, with one Warning event and a requeue for when
  // the timeout falls due.
  Plan p = Step(&job, {WaitingPod(0, "ErrImagePull", "not found"), RankPod(1, "Pending")}, kT0 + 5);
  EXPECT_EQ(job.status.phase, api::JobPhase::kPending);
  EXPECT_FALSE(Cond(job.status, api::kPodsReady).status);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "ErrImagePull");
  EXPECT_EQ(Cond(job.status, api::kPodsReady).message, "rex-rank-0: not found");
  EXPECT_EQ(job.status.reason, "ErrImagePull");
  EXPECT_EQ(job.status.message, "rex-rank-0: not found");
  EXPECT_EQ(Events(p, "ErrImagePull"), 1);
  EXPECT_EQ(p.requeue_after, 115);
  EXPECT_EQ(p.pods, PodAction::kRun);

  // The kubelet alternates ErrImagePull and ImagePullBackOff: no second event.
  p = Step(&job, {WaitingPod(0, "ImagePullBackOff", kBackOff), RankPod(1, "Pending")}, kT0 + 30);
  EXPECT_EQ(job.status.reason, "ImagePullBackOff");
  EXPECT_EQ(Events(p, "ImagePullBackOff"), 0);
  EXPECT_EQ(p.requeue_after, 90);

  p = Step(&job, {WaitingPod(0, "ImagePullBackOff", kBackOff), RankPod(1, "Pending")}, kT0 + 120);
  EXPECT_EQ(job.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(Cond(job.status, api::kFailed).reason, "ImagePullBackOff");
  EXPECT_EQ(Cond(job.status, api::kFailed).message,
            std::string("rex-rank-0: container trainer did not start within 120 s "
                        "(runPolicy.startErrorTimeoutSeconds): ImagePullBackOff for image "
                        "localhost/petname:dev: ") +
                kBackOff);
  EXPECT_EQ(job.status.reason, "ImagePullBackOff");
  EXPECT_EQ(job.status.message, Cond(job.status, api::kFailed).message);
  EXPECT_EQ(job.status.completion_time, std::optional<int64_t>(kT0 + 120));
  EXPECT_EQ(Events(p, "ImagePullBackOff"), 1);    // the Failed event, only
  EXPECT_EQ(p.pods, PodAction::kCleanupRunning);  // cleanPodPolicy Running deletes pending pods
  EXPECT_TRUE(job.status.model_path.empty());
}

TEST(JobStartTest, TheTimeoutDefaultsTo300SecondsAndCountsFromThePod) {
  api::Job job = TestJob(1);
  EXPECT_EQ(job.spec.start_error_timeout_seconds, 300);
  // An operator that first looks long after the error began fails the job in that pass.
  Plan p = Step(&job, {WaitingPod(0, "CreateContainerConfigError", "secret \"s3\" not found")},
                kT0 + 300);
  EXPECT_EQ(job.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(Cond(job.status, api::kFailed).reason, "CreateContainerConfigError");
  EXPECT_EQ(Events(p, "CreateContainerConfigError"), 1);
  api::Job waiting = TestJob(1);
  p = Step(&waiting, {WaitingPod(0, "CreateContainerConfigError", "")}, kT0 + 299);
  EXPECT_EQ(waiting.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(p.requeue_after, 1);
}

TEST(JobStartTest, UnschedulableIsReportedAtOnceAndNeverFailsTheJob) {
  api::Job job = TestJob(2, R"({"spec": {"runPolicy": {"startErrorTimeoutSeconds": 10}}})");
  Plan p = Step(&job, {RankPod(0, "Running"), UnschedulablePod(1)}, kT0 + 1);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "Unschedulable");
  EXPECT_EQ(Cond(job.status, api::kPodsReady).message,
            "rex-rank-1: 0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(job.status.reason, "Unschedulable");
  p = Step(&job, {RankPod(0, "Running"), UnschedulablePod(1)}, kT0 + 100'000);
  EXPECT_EQ(job.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(job.status.reason, "Unschedulable");
  EXPECT_EQ(Cond(job.status, api::kPodsScheduled).reason, "Unschedulable");  // after 60 s
}

TEST(JobStartTest, AStartErrorOutranksUnschedulableAndAllBlockedPodsAreNamed) {
  api::Job job = TestJob(2);
  Step(&job, {UnschedulablePod(0), WaitingPod(1, "ImagePullBackOff", kBackOff)}, kT0 + 1);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "ImagePullBackOff");
  EXPECT_EQ(Cond(job.status, api::kPodsReady).message,
            std::string("rex-rank-1: ") + kBackOff +
                "; rex-rank-0: 0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(JobStartTest, PodsReadyOnceEveryRankIsReadyAndTheErrorClears) {
  api::Job job = TestJob(2);
  Step(&job, {WaitingPod(0, "ImagePullBackOff", kBackOff), RankPod(1, "Running")}, kT0 + 1);
  EXPECT_EQ(job.status.reason, "ImagePullBackOff");
  Step(&job, {RankPod(0, "Pending"), RankPod(1, "Running")}, kT0 + 2);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "PodsStarting");
  EXPECT_EQ(Cond(job.status, api::kPodsReady).message, "1/2 rank pods ready");
  EXPECT_EQ(job.status.reason, "");
  Step(&job, {RankPod(0, "Running"), RankPod(1, "Running")}, kT0 + 3);
  EXPECT_TRUE(Cond(job.status, api::kPodsReady).status);
  EXPECT_EQ(Cond(job.status, api::kPodsReady).reason, "AllRanksReady");
  EXPECT_EQ(Cond(job.status, api::kPodsReady).last_transition_time, kT0 + 3);
}

TEST(JobStartTest, WithoutAClaimTheJobSaysOnceThatCheckpointsDieWithThePods) {
  api::Job job = TestJob(1);
  Plan p = Step(&job, {}, kT0);
  const api::Condition& c = Cond(job.status, api::kCheckpointsPersistent);
  EXPECT_FALSE(c.status);
  EXPECT_EQ(c.reason, "EmptyDir");
  EXPECT_NE(c.message.find("/checkpoints/rex"), std::string::npos);
  EXPECT_NE(c.message.find("lost when the pods go"), std::string::npos);
  EXPECT_NE(c.message.find("spec.checkpoint.claimName"), std::string::npos);
  ASSERT_EQ(Events(p, "CheckpointsNotPersistent"), 1);
  for (const JobEvent& e : p.events) {
    if (e.reason == "CheckpointsNotPersistent") {
      EXPECT_EQ(e.type, "Warning");
    }
  }
  p = Step(&job, {RankPod(0, "Running")}, kT0 + 1);
  EXPECT_EQ(Events(p, "CheckpointsNotPersistent"), 0);
  EXPECT_EQ(job.status.reason, "");  // a warning, not why the job is in its phase
}

TEST(JobStartTest, WithAClaimCheckpointsPersistAndSucceededNamesTheModelOnIt) {
  api::Job job = TestJob(2, R"({"spec": {"checkpoint": {"claimName": "ckpt"}}})");
  Plan p = Step(&job, {RankPod(0, "Running"), RankPod(1, "Running")}, kT0);
  EXPECT_TRUE(Cond(job.status, api::kCheckpointsPersistent).status);
  EXPECT_EQ(Cond(job.status, api::kCheckpointsPersistent).reason, "PersistentVolumeClaim");
  EXPECT_EQ(Events(p, "CheckpointsNotPersistent"), 0);
  EXPECT_TRUE(job.status.model_path.empty());
  Step(&job, {RankPod(0, "Succeeded"), RankPod(1, "Succeeded")}, kT0 + 1);
  EXPECT_EQ(job.status.phase, api::JobPhase::kSucceeded);
  EXPECT_EQ(job.status.model_path, "/checkpoints/rex/model.safetensors");
  EXPECT_EQ(job.status.model,
            std::optional<api::ModelVolume>(api::ModelVolume{"ckpt", "rex/model.safetensors"}));
  EXPECT_EQ(job.status.reason, "");

  api::Job sub = TestJob(
      1, R"({"spec": {"checkpoint": {"claimName": "ckpt", "path": "/ck/", "subPath": "t/3"}}})");
  Step(&sub, {RankPod(0, "Succeeded")}, kT0);
  EXPECT_EQ(sub.status.model_path, "/ck/t/3/model.safetensors");
  EXPECT_EQ(sub.status.model->sub_path, "t/3/model.safetensors");
}

TEST(JobStartTest, WithoutAClaimSucceededNamesThePathInThePodsOnly) {
  api::Job job = TestJob(1);
  Step(&job, {RankPod(0, "Succeeded")}, kT0);
  EXPECT_EQ(job.status.model_path, "/checkpoints/rex/model.safetensors");
  EXPECT_FALSE(job.status.model);
}

TEST(JobStartTest, ReasonSummarizesFailuresAndRestarts) {
  api::Job job = TestJob(1, R"({"spec": {"runPolicy": {"restartPolicy": "Never"}}})");
  Json pod = RankPod(0, "Failed");
  pod["status"]["containerStatuses"] = {
      {{"name", "trainer"}, {"state", {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}}}}};
  Step(&job, {pod}, kT0);
  EXPECT_EQ(job.status.reason, "RankFailed");
  EXPECT_EQ(job.status.message, Cond(job.status, api::kFailed).message);

  api::Job restarting = TestJob(1);
  Step(&restarting, {pod}, kT0);
  EXPECT_EQ(restarting.status.phase, api::JobPhase::kRestarting);
  EXPECT_EQ(restarting.status.reason, "Error");
  EXPECT_EQ(Cond(restarting.status, api::kPodsReady).reason, "<none>");
}

TEST(JobStartTest, AnInvalidTimeoutIsRefused) {
  nlohmann::json obj = {{"metadata", {{"name", "rex"}}},
                        {"spec",
                         {{"image", "i"},
                          {"dataset", {{"path", "/d"}}},
                          {"runPolicy", {{"startErrorTimeoutSeconds", 0}}}}}};
  api::Job job;
  Status s = api::JobFromJson(obj, &job);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("startErrorTimeoutSeconds"), std::string::npos);
}

}  // namespace
}  // namespace petname::controller
