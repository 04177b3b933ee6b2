// DecideQueue with a Workload that no longer matches its job (queue_admission.h).
#include <gtest/gtest.h>

#include "operator/api/conditions.h"
#include "operator/jobs/lifecycle.h"
#include "operator/kueue/queue_admission.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

constexpr int64_t kT0 = 1'800'000'000;

QueueState Pending(api::WorkloadDrift drift) {
  QueueState q;
  q.wanted = true;
  q.workload.exists = true;
  q.workload.name = "wl";
  q.drift = drift;
  return q;
}

QueueState Running(api::WorkloadDrift drift) {
  QueueState q = Pending(drift);
  q.workload.quota_reserved = true;
  q.workload.admitted = true;
  q.workload.admitted_count = 2;
  return q;
}

api::WorkloadDrift PodSets() {
  api::WorkloadDrift d;
  d.pod_sets = true;
  return d;
}

api::WorkloadDrift Queue() {
  api::WorkloadDrift d;
  d.queue = true;
  return d;
}

api::WorkloadDrift Priority(bool presence) {
  api::WorkloadDrift d;
  d.priority_class = true;
  d.priority_presence = presence;
  return d;
}

TEST(QueueResyncTest, AWorkloadWithoutQuotaIsUpdatedAndTheJobWaits) {
  for (const api::WorkloadDrift& d : {PodSets(), Queue(), Priority(true), Priority(false)}) {
    const Plan p = ComputeStatus(TestJob(3), {}, PodGroupState::kNotWanted, kT0, Pending(d));
    EXPECT_EQ(p.workload, WorkloadAction::kUpdate);
    EXPECT_EQ(p.pods, PodAction::kStop);
    EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WaitingForAdmission");
  }
}

TEST(QueueResyncTest, AReservedWorkloadThatCannotTakeTheChangeIsReplacedAndTheRanksStop) {
  for (const api::WorkloadDrift& d : {PodSets(), Queue(), Priority(true)}) {
    const Plan p =
        ComputeStatus(TestJob(3), RunningPods(2), PodGroupState::kNotWanted, kT0, Running(d));
    EXPECT_EQ(p.workload, WorkloadAction::kReplace);
    EXPECT_EQ(p.pods, PodAction::kStop);
    EXPECT_EQ(p.status.phase, api::JobPhase::kSuspended);
    EXPECT_EQ(Cond(p.status, api::kSuspended), "True/NoMatchingWorkload");
    EXPECT_EQ(p.status.restarts, 0);
  }
}

TEST(QueueResyncTest, AnotherPriorityClassUpdatesARunningJobsWorkloadAndItRunsOn) {
  const Plan p = ComputeStatus(TestJob(2), RunningPods(2), PodGroupState::kNotWanted, kT0,
                               Running(Priority(false)));
  EXPECT_EQ(p.workload, WorkloadAction::kUpdate);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_NE(Cond(p.status, api::kSuspended), "True/NoMatchingWorkload");
}

TEST(QueueResyncTest, AMissingPriorityClassChangesNothing) {
  QueueState pending = Pending(Priority(false));
  pending.priority_class_missing = true;
  pending.priority = {api::WorkloadPriority::Kind::kWorkloadPriorityClass, "nope", 0};
  Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, pending);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/PriorityClassNotFound");
  EXPECT_GT(p.requeue_after, 0);

  QueueState running = Running(Priority(true));
  running.priority_class_missing = true;
  p = ComputeStatus(TestJob(2), RunningPods(2), PodGroupState::kNotWanted, kT0, running);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(p.pods, PodAction::kRun);
  EXPECT_GT(p.requeue_after, 0);
}

TEST(QueueResyncTest, ADeletingWorkloadIsNotTouched) {
  QueueState q = Running(PodSets());
  q.workload.deleting = true;
  const Plan p = ComputeStatus(TestJob(3), RunningPods(2), PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kNone);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WorkloadDeleted");
}

TEST(QueueResyncTest, ASuspendedJobsWorkloadFollowsItToo) {
  const api::Job job = TestJob(3, R"({"spec": {"runPolicy": {"suspend": true}}})");
  EXPECT_EQ(ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0, Pending(PodSets())).workload,
            WorkloadAction::kUpdate);
  EXPECT_EQ(ComputeStatus(job, {}, PodGroupState::kNotWanted, kT0, Running(PodSets())).workload,
            WorkloadAction::kReplace);
}

TEST(QueueResyncTest, AnEvictedReservationIsReleasedBeforeAnyUpdate) {
  // The job's priority class changed while Kueue evicts it: the release comes first (a refused
  // update must never keep an evicted job's quota), the update on a later pass.
  QueueState q = Running(Priority(false));
  q.workload.evicted = true;
  q.workload.evicted_reason = "Preempted";
  Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kClearReservation);
  EXPECT_EQ(p.pods, PodAction::kStop);
  // While a rank still stops there is nothing to release: the update (its priority alone) goes.
  p = ComputeStatus(TestJob(2), RunningPods(1), PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.workload, WorkloadAction::kUpdate);
  // Suspended by the user: the same order.
  const api::Job suspended = TestJob(2, R"({"spec": {"runPolicy": {"suspend": true}}})");
  EXPECT_EQ(ComputeStatus(suspended, {}, PodGroupState::kNotWanted, kT0, q).workload,
            WorkloadAction::kClearReservation);
  // Released: the Workload holds no quota, and takes the whole change.
  QueueState released = Pending(Priority(false));
  released.workload.evicted = true;
  EXPECT_EQ(ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, released).workload,
            WorkloadAction::kUpdate);
}

TEST(QueueResyncTest, WithoutTheLabelTheWorkloadStillGates) {
  QueueState q = Pending({});
  q.label_removed = true;
  const Plan p = ComputeStatus(TestJob(2), {}, PodGroupState::kNotWanted, kT0, q);
  EXPECT_EQ(p.pods, PodAction::kStop);
  EXPECT_EQ(Cond(p.status, api::kSuspended), "True/WaitingForAdmission");
  QueueState finished = Running({});
  finished.label_removed = true;
  EXPECT_EQ(FinishedJobWorkload(finished), WorkloadAction::kFinish);
}

}  // namespace
}  // namespace petname::controller
