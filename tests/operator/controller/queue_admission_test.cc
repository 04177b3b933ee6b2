#include "operator/kueue/queue_admission.h"

#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "operator/jobs/lifecycle.h"
#include "operator/kueue/pod_quota.h"
#include "operator/kueue/workload_pods_ready.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

constexpr int64_t kT0 = 1'800'000'000;

QueueState Waiting() {
  QueueState q;
  q.wanted = true;
  q.workload.exists = true;
  q.workload.name = "wl";
  q.workload.pending_message = "insufficient quota for cpu";
  return q;
}

QueueState Admitted(int count) {
  QueueState q = Waiting();
  q.workload.quota_reserved = true;
  q.workload.admitted = true;
  q.workload.admitted_count = count;
  q.workload.cluster_queue = "cq";
  q.workload.pending_message.clear();
  return q;
}

QueueState Evicted(const std::string& reason, bool reserved) {
  QueueState q = Admitted(2);
  q.workload.evicted = true;
  q.workload.evicted_reason = reason;
  q.workload.evicted_message = "Preempted to accommodate a higher priority Workload";
  q.workload.quota_reserved = reserved;
  q.workload.admitted = reserved;
  return q;
}

TEST(QueueAdmissionTest, NoWorkloadYetCreatesOneAndNoPod) {
  QueueState q;
  q.wanted = true;
  const Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kCreate);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WaitingForAdmission");
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/Pending");
  EXPECT_EQ(p.status.reason, "WaitingForAdmission");
}

TEST(QueueAdmissionTest, WaitingForQuotaCreatesNoPod) {
  const Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, Waiting());
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(Cond(p.status, api::kAdmitted), "False/NoReservation");
  const api::Condition* s = api::FindCondition(p.status.conditions, api::kSuspended);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->message.find("insufficient quota for cpu"), std::string::npos) << s->message;
}

TEST(QueueAdmissionTest, AdmissionStartsTheRanksAndSaysSo) {
  api::Job job = TestJob(2);
  Plan p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0, Waiting());
  job.status = p.status;
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 30, Admitted(2));
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(p.status.phase, api::JobPhase::kPending);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "False/Admitted");
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "True/QuotaReserved");
  EXPECT_EQ(Cond(p.status, api::kAdmitted), "True/Admitted");
  EXPECT_EQ(p.status.start_time, kT0 + 30);  // a deadline counts from the admission
  bool admitted_event = false;
  for (const JobEvent& e : p.events) admitted_event |= e.reason == "Admitted";
  EXPECT_TRUE(admitted_event);
}

TEST(QueueAdmissionTest, EvictionStopsTheRanksWithoutARestart) {
  api::Job job = TestJob(2);
  job.status =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0, Admitted(2)).status;
  ASSERT_EQ(job.status.phase, api::JobPhase::kRunning);
  Plan p = ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0 + 60,
                         Evicted("Preempted", true));
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // pods are still there
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  EXPECT_EQ(p.status.restarts, 0);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Preempted");
  EXPECT_EQ(Cond(p.status, api::kRunning), "False/Preempted");
  EXPECT_EQ(p.status.reason, "Preempted");
  bool preempted_event = false;
  for (const JobEvent& e : p.events) preempted_event |= e.reason == "Preempted";
  EXPECT_TRUE(preempted_event);
  job.status = p.status;

  // The ranks are gone: the reservation is released, once.
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 70, Evicted("Preempted", true));
  EXPECT_EQ(p.workload, WorkloadAction::kClearReservation);
  job.status = p.status;
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 71, Evicted("Preempted", false));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  job.status = p.status;

  // Re-admitted: the same restart generation runs again (the trainer resumes).
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 90, Admitted(2));
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(p.status.restarts, 0);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "False/Admitted");
}

TEST(QueueAdmissionTest, PodsStuckTerminatingHoldTheReservationOnlyForTheirGracePeriod) {
  api::Job job = TestJob(2);
  job.status =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0, Admitted(2)).status;
  job.status = ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0 + 60,
                             Evicted("Preempted", true))
                   .status;
  // Both ranks deleted at kT0 + 61 with a 30 s grace period; their node never confirms.
  std::vector<api::ObservedPod> terminating = RunningPods(2);
  for (api::ObservedPod& pod : terminating) {
    pod.deleting = true;
    pod.deletion_time = kT0 + 91;
  }
  Plan p = ComputeStatus(job, terminating, PodGroupState::kNotWanted, kT0 + 70,
                         Evicted("Preempted", true));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // the ranks may still write their checkpoint
  EXPECT_EQ(p.requeue_after, 22);                // a look again once the grace period is over
  job.status = p.status;
  p = ComputeStatus(job, terminating, PodGroupState::kNotWanted, kT0 + 91,
                    Evicted("Preempted", true));
  EXPECT_EQ(p.workload, WorkloadAction::kClearReservation);
  EXPECT_EQ(p.pods, PodAction::kStop);

  // A pod deleted without a readable deadline holds the quota until it is gone.
  terminating[0].deletion_time.reset();
  EXPECT_TRUE(HoldsQuota(terminating[0], kT0 + 1000));
  EXPECT_FALSE(HoldsQuota(terminating[1], kT0 + 91));
  EXPECT_TRUE(HoldsQuota(RunningPods(1)[0], kT0 + 1000));
  EXPECT_EQ(NextGraceEnd(terminating, kT0 + 80), 11);
  EXPECT_EQ(NextGraceEnd(terminating, kT0 + 91), std::nullopt);

  // Without an eviction waiting for them, deleted pods bring no extra look.
  api::Job admitted = TestJob(2);
  EXPECT_EQ(ComputeStatus(admitted, terminating, PodGroupState::kNotWanted, kT0 + 80, Admitted(2))
                .requeue_after,
            0);
}

TEST(QueueAdmissionTest, AnEvictionAfterEveryRankSucceededFinishesTheJob) {
  api::Job job = TestJob(2);
  job.status =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0, Admitted(2)).status;
  std::vector<api::ObservedPod> done = RunningPods(2);
  for (api::ObservedPod& pod : done) pod.phase = "Succeeded";
  Plan p =
      ComputeStatus(job, done, PodGroupState::kNotWanted, kT0 + 60, Evicted("Preempted", true));
  EXPECT_EQ(p.status.phase, api::JobPhase::kSucceeded);
  EXPECT_NE(p.pods, PodAction::kStop);  // the finished pods are not deleted
  EXPECT_EQ(p.workload, WorkloadAction::kFinish);
  EXPECT_EQ(p.status.restarts, 0);
}

TEST(QueueAdmissionTest, AWorkloadFinishedBeforeTheJobFailsIt) {
  QueueState q = Admitted(2);
  q.workload.finished = true;
  q.workload.finished_reason = "FailedToStart";
  q.workload.finished_message = "conflict for nodeSelector key zone";
  api::Job job = TestJob(2);
  const Plan p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.status.phase, api::JobPhase::kFailed);
  EXPECT_EQ(Cond(p.status, api::kFailed), "True/FailedToStart");
  const api::Condition* failed = api::FindCondition(p.status.conditions, api::kFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_NE(failed->message.find("conflict for nodeSelector key zone"), std::string::npos);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // finished already: Kueue freed its quota
  EXPECT_NE(p.pods, PodAction::kRun);
}

TEST(QueueAdmissionTest, QueueLabelRemovedBeforeTheWorkloadKeepsTheJobWaiting) {
  QueueState q;
  q.wanted = q.label_removed = true;
  q.workload.name = "wl";
  const Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // no Workload in no queue
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/QueueLabelRemoved");
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/QueueLabelRemoved");
  EXPECT_TRUE(QueueProblem("QueueLabelRemoved"));
}

TEST(QueueAdmissionTest, DeactivatedJobWaitsAndSaysWhy) {
  api::Job job = TestJob(1);
  const Plan p = ComputeStatus(job, RunningPods(1), PodGroupState::kNotWanted, kT0,
                               Evicted("Deactivated", true));
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Deactivated");
  EXPECT_EQ(p.pods, PodAction::kStop);
}

TEST(QueueAdmissionTest, UnservedApiCreatesNoPodAndLooksAgain) {
  QueueState q;
  q.wanted = true;
  q.unavailable = true;
  const Plan p = ComputeStatus(TestJob(1), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/KueueUnavailable");
  EXPECT_EQ(p.requeue_after, kQueueRecheckSeconds);
}

TEST(QueueAdmissionTest, FinishedJobFinishesItsWorkloadOnce) {
  api::Job job = TestJob(1);
  std::vector<api::ObservedPod> done = RunningPods(1);
  done[0].phase = "Succeeded";
  Plan p = ComputeStatus(job, done, PodGroupState::kNotWanted, kT0, Admitted(1));
  EXPECT_EQ(p.status.phase, api::JobPhase::kSucceeded);
  EXPECT_EQ(p.workload, WorkloadAction::kFinish);
  job.status = p.status;
  QueueState finished = Admitted(1);
  finished.workload.finished = true;
  p = ComputeStatus(job, done, PodGroupState::kNotWanted, kT0 + 1, finished);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
}

TEST(QueueAdmissionTest, UserSuspendWinsAndWithoutAQueueNothingChanges) {
  api::Job job = TestJob(1, R"({"spec": {"runPolicy": {"suspend": true}}})");
  Plan p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0, Admitted(1));
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Suspended");
  EXPECT_EQ(p.status.reason, "");
  p = ComputeStatus(TestJob(1), {}, PodGroupState::kNotWanted, kT0, QueueState{});
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "<none>");
}

TEST(QueueAdmissionTest, SuspendedJobReleasesAnEvictedReservation) {
  api::Job job = TestJob(2);
  job.status =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0, Admitted(2)).status;
  job.spec.suspend = true;

  // Suspended while admitted: the ranks go, the reservation stays.
  Plan p = ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0 + 10, Admitted(2));
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Suspended");
  job.status = p.status;
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 20, Admitted(2));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  job.status = p.status;

  // Preempted: released once no pod is left, as for a job that is not suspended.
  p = ComputeStatus(job, RunningPods(1), PodGroupState::kNotWanted, kT0 + 30,
                    Evicted("Preempted", true));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 30, Evicted("Preempted", true));
  EXPECT_EQ(p.workload, WorkloadAction::kClearReservation);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Suspended");
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  job.status = p.status;

  // Released: the conditions say so, and nothing more is written.
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 31, Evicted("Preempted", false));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/Pending");
  EXPECT_EQ(Cond(p.status, api::kAdmitted), "False/NoReservation");
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/Suspended");
}

TEST(QueueAdmissionTest, PartialAdmissionSizesTheGangAndItsPodGroupFollows) {
  api::Job job = TestJob(4, R"({"spec": {"elasticPolicy": {"minReplicas": 2},
    "scheduling": {"gang": {"enabled": true}}}})");
  ASSERT_EQ(job.spec.gang_min_available, 4);
  api::Job admitted = job;
  ApplyAdmission(Admitted(3), &admitted.spec);
  EXPECT_EQ(admitted.spec.replicas, 3);
  EXPECT_EQ(admitted.spec.gang_min_available, 3);  // minMember: the admitted count
  const DesiredState d = Desired(admitted);
  ASSERT_EQ(d.pod_groups.size(), 1u);
  EXPECT_EQ(d.pod_groups[0]["spec"]["minMember"], 3);

  // Admitted again with 2: the existing PodGroup (minMember 3) is updated before any pod.
  Observed observed;
  observed.pod_groups.push_back(d.pod_groups[0]);
  observed.pod_groups[0]["metadata"]["resourceVersion"] = "5";
  api::Job smaller = job;
  ApplyAdmission(Admitted(2), &smaller.spec);
  Actions a = Diff(smaller, Desired(smaller), observed);
  ASSERT_EQ(a.update.size(), 1u);
  EXPECT_EQ(a.update[0]["spec"]["minMember"], 2);
  EXPECT_EQ(a.update[0]["metadata"]["resourceVersion"], "5");
  EXPECT_TRUE(Diff(admitted, Desired(admitted), observed).update.empty());

  // A smaller gang.minAvailable stays; an eviction changes nothing.
  api::Job explicit_min = TestJob(4, R"({"spec": {"scheduling": {"gang": {"enabled": true,
    "minAvailable": 2}}}})");
  ApplyAdmission(Admitted(3), &explicit_min.spec);
  EXPECT_EQ(explicit_min.spec.gang_min_available, 2);
  api::Job evicted = job;
  ApplyAdmission(Evicted("Preempted", true), &evicted.spec);
  EXPECT_EQ(evicted.spec.replicas, 4);
}

QueueState Deleting(QueueState q) {
  q.workload.deleting = true;
  q.workload.in_use = true;
  return q;
}

TEST(QueueAdmissionTest, DeletedWorkloadStopsTheRanksAndIsNotReplacedWhileTerminating) {
  api::Job job = TestJob(2);
  job.status =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0, Admitted(2)).status;
  Plan p =
      ComputeStatus(job, RunningPods(2), PodGroupState::kNotWanted, kT0 + 5, Deleting(Admitted(2)));
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // no second Workload while the first is there
  EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WorkloadDeleted");
  EXPECT_EQ(p.status.restarts, 0);
  job.status = p.status;
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 6,
                    Deleting(Evicted("Preempted", true)));
  EXPECT_EQ(p.workload, WorkloadAction::kNone);  // nothing to release: it is going
  EXPECT_FALSE(WorkloadPodsReady(Deleting(Admitted(2)).workload, false));

  // Gone: a new Workload, and the job waits for it to be admitted.
  QueueState gone;
  gone.wanted = true;
  p = ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0 + 7, gone);
  EXPECT_EQ(p.workload, WorkloadAction::kCreate);

  // A finished job does not finish a Workload that is being deleted.
  QueueState finished = Deleting(Admitted(1));
  EXPECT_EQ(FinishedJobWorkload(finished), WorkloadAction::kNone);
}

TEST(QueueAdmissionTest, MissingPriorityClassOrTakenNameCreatesNoWorkload) {
  QueueState q;
  q.wanted = true;
  q.workload.name = "petnametrainingjob-rex-12345";
  q.priority = {api::WorkloadPriority::Kind::kWorkloadPriorityClass, "urgent", 0};
  q.priority_class_missing = true;
  Plan p = ComputeStatus(TestJob(1), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.requeue_after, kQueueRecheckSeconds);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/PriorityClassNotFound");
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/PriorityClassNotFound");
  const JobEvent* event = nullptr;
  for (const JobEvent& e : p.events) {
    if (e.reason == "PriorityClassNotFound") event = &e;
  }
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(event->type, "Warning");
  EXPECT_NE(event->message.find("urgent"), std::string::npos) << event->message;

  q.priority_class_missing = false;
  q.name_taken_by = "a Workload controlled by Job other";
  p = ComputeStatus(TestJob(1), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WorkloadConflict");
  const api::Condition* c = api::FindCondition(p.status.conditions, api::kSuspended);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->message.find("petnametrainingjob-rex-12345"), std::string::npos) << c->message;
  EXPECT_NE(c->message.find("Job other"), std::string::npos) << c->message;
}

std::string PodsReady(const QueueState& q, bool ready) {
  const std::optional<api::WorkloadCondition> c = WorkloadPodsReady(q.workload, ready);
  return c ? std::string(c->status ? "True" : "False") + "/" + c->reason : "<none>";
}

QueueState WithPodsReady(QueueState q, bool status, const std::string& reason) {
  q.workload.pods_ready = status;
  q.workload.pods_ready_reason = reason;
  return q;
}

TEST(QueueAdmissionTest, WorkloadPodsReadyAsKueueWritesIt) {
  // Never ready since the admission: WaitForStart (timed from the admission by Kueue).
  EXPECT_EQ(PodsReady(Admitted(2), false), "False/WaitForStart");
  EXPECT_EQ(PodsReady(WithPodsReady(Admitted(2), false, "WaitForStart"), false), "<none>");
  EXPECT_EQ(PodsReady(WithPodsReady(Admitted(2), false, "PodsReady"), false), "False/WaitForStart");
  EXPECT_EQ(PodsReady(Admitted(2), true), "True/Started");
  EXPECT_EQ(PodsReady(WithPodsReady(Admitted(2), false, "WaitForStart"), true), "True/Started");
  EXPECT_EQ(PodsReady(WithPodsReady(Admitted(2), true, "Started"), true), "<none>");

  // A rank failed after the ranks had been ready: WaitForRecovery (recoveryTimeout), then
  // Recovered, and WaitForRecovery again at the next failure.
  const QueueState started = WithPodsReady(Admitted(2), true, "Started");
  EXPECT_EQ(PodsReady(started, false), "False/WaitForRecovery");
  const QueueState recovering = WithPodsReady(Admitted(2), false, "WaitForRecovery");
  EXPECT_EQ(PodsReady(recovering, false), "<none>");
  EXPECT_EQ(PodsReady(recovering, true), "True/Recovered");
  const QueueState recovered = WithPodsReady(Admitted(2), true, "Recovered");
  EXPECT_EQ(PodsReady(recovered, true), "<none>");
  EXPECT_EQ(PodsReady(recovered, false), "False/WaitForRecovery");
  EXPECT_EQ(PodsReady(WithPodsReady(Admitted(2), true, "PodsReady"), false),
            "False/WaitForRecovery");

  // Not admitted (queued, or the reservation released after an eviction): WaitForStart, so the
  // next admission is timed as a start again.
  EXPECT_EQ(PodsReady(Waiting(), false), "False/WaitForStart");
  EXPECT_EQ(PodsReady(WithPodsReady(Waiting(), true, "Started"), false), "False/WaitForStart");
  EXPECT_EQ(PodsReady(WithPodsReady(Waiting(), false, "WaitForRecovery"), false),
            "False/WaitForStart");
  EXPECT_EQ(PodsReady(WithPodsReady(Waiting(), false, "WaitForStart"), true), "<none>");

  // Evicted: as for any Workload. Still admitted while the ranks stop, a ready job is recovering;
  // once the reservation is released (Evicted stays True until the next admission) it is
  // WaitForStart, so that a PodsReadyTimeout eviction from WaitForRecovery does not leave a
  // WaitForRecovery of before the eviction for the next admission (Kueue would time that
  // admission from the old condition and evict it again at once).
  EXPECT_EQ(PodsReady(WithPodsReady(Evicted("Preempted", true), true, "Started"), false),
            "False/WaitForRecovery");
  EXPECT_EQ(
      PodsReady(WithPodsReady(Evicted("PodsReadyTimeout", false), false, "WaitForRecovery"), false),
      "False/WaitForStart");

  // Nothing to write: no Workload, finished.
  EXPECT_EQ(PodsReady(QueueState{}, true), "<none>");
  QueueState finished = WithPodsReady(Admitted(2), true, "Started");
  finished.workload.finished = true;
  EXPECT_EQ(PodsReady(finished, false), "<none>");
}

TEST(QueueAdmissionTest, AReadmissionAfterARecoveryTimeoutIsTimedAsAStart) {
  // Ready, then a rank fails: WaitForRecovery. Kueue evicts for PodsReadyTimeout while the
  // reservation is held; the ranks go, the reservation is released.
  QueueState q = WithPodsReady(Evicted("PodsReadyTimeout", true), false, "WaitForRecovery");
  EXPECT_EQ(PodsReady(q, false), "<none>");  // still admitted: it stays WaitForRecovery
  q.workload.quota_reserved = q.workload.admitted = false;
  EXPECT_EQ(PodsReady(q, false), "False/WaitForStart");
  // Kueue admits it again: Evicted False, WaitForStart timed from the new admission, then
  // Started once the new ranks are ready (not Recovered: they started afresh).
  QueueState again = WithPodsReady(Admitted(2), false, "WaitForStart");
  EXPECT_EQ(PodsReady(again, false), "<none>");
  EXPECT_EQ(PodsReady(again, true), "True/Started");
}

TEST(QueueAdmissionTest, NamespaceKueueDoesNotManageWaitsWithoutAWorkload) {
  QueueState q;
  q.wanted = true;
  q.namespace_unmanaged = true;
  const Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(p.requeue_after, kQueueRecheckSeconds);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/NamespaceNotManaged");
  EXPECT_EQ(Cond(p.status, api::kQuotaReserved), "False/NamespaceNotManaged");
  EXPECT_TRUE(QueueProblem("NamespaceNotManaged"));
}

}  // namespace
}  // namespace petname::controller
