#include "operator/jobs/lifecycle.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "operator/api/conditions.h"
#include "operator/api/reserved_env.h"
#include "operator/jobs/attempt_pods.h"
#include "operator/jobs/finished_job.h"
#include "operator/jobs/gang_restart.h"
#include "operator/jobs/job_events.h"
#include "operator/jobs/job_outputs.h"
#include "operator/jobs/rank_pod.h"
#include "operator/jobs/rank_readiness.h"
#include "operator/jobs/status_summary.h"
#include "operator/kueue/pod_quota.h"

namespace petname::controller {
namespace {

constexpr int64_t kGangRecheckSeconds = 30;

class Decider {
 public:
  Decider(const api::Job& job, PodGroupState group, const QueueState& queue, int64_t now,
          Plan* plan)
      : job_(job),
        spec_(job.spec),
        group_(group),
        queue_(queue),
        now_(now),
        plan_(plan),
        status_(plan->status) {}

  void Run(const std::vector<api::ObservedPod>& owned);

 private:
  void Requeue(int64_t seconds) {
    seconds = std::max<int64_t>(seconds, 1);
    if (plan_->requeue_after == 0 || seconds < plan_->requeue_after) {
      plan_->requeue_after = seconds;
    }
  }
  void SetPhase(api::JobPhase phase) { status_.phase = phase; }
  // Whether a pod of `owned` holds the job's quota (kueue/pod_quota.h); while an evicted Workload's
  // reservation or a deleted one's finalizer waits for that, the job is looked at again when the
  // next deleted pod's grace period ends.
  bool HoldQuota(const std::vector<api::ObservedPod>& owned) {
    const api::WorkloadState& wl = queue_.workload;
    if ((wl.evicted && wl.quota_reserved) || (wl.in_use && wl.deleting)) {
      if (const std::optional<int64_t> in = NextGraceEnd(owned, now_)) Requeue(*in + 1);
    }
    return std::any_of(owned.begin(), owned.end(),
                       [this](const api::ObservedPod& pod) { return HoldsQuota(pod, now_); });
  }
  // Every rank of the current attempt Succeeded: the job is done whatever its Workload says now
  // (an eviction that lands after the last rank finished does not delete finished pods; Kueue's
  // jobframework looks at "finished" first too).
  bool RanksSucceeded(const std::vector<api::ObservedPod>& owned) const {
    const PodCounts c = CountPods(CurrentAttempt(owned, status_.restarts).current);
    return spec_.replicas > 0 && c.succeeded >= spec_.replicas;
  }
  bool Has(const char* type) const { return api::FindCondition(status_.conditions, type); }
  bool Is(const char* type, bool value) const {
    return api::ConditionIs(status_.conditions, type, value);
  }
  void Set(const char* type, bool value, const std::string& reason, const std::string& msg) {
    api::SetCondition(&status_.conditions, type, value, reason, msg, now_);
  }
  void Set(const char* type, const ConditionValue& value) {
    Set(type, value.status, value.reason, value.message);
  }
  void SetIfPresent(const char* type, bool value, const std::string& reason,
                    const std::string& msg) {
    if (Has(type)) Set(type, value, reason, msg);
  }
  void Finish(bool ok, const std::string& reason, const std::string& message);
  void AfterFinish();
  bool InvalidSpec();
  void Suspend(const std::vector<api::ObservedPod>& owned);
  bool Queued(const std::vector<api::ObservedPod>& owned, api::JobPhase previous);
  bool Deadline();
  bool GangUnavailable(api::JobPhase previous, const std::vector<api::ObservedPod>& current);
  void Restart(const RankFailure& f, int generation);
  void AwaitRecreate(bool stale);
  void Normal(const std::vector<api::ObservedPod>& current, const PodCounts& c);
  bool PodsReady(const std::vector<api::ObservedPod>& current);

  const api::Job& job_;
  const api::JobSpec& spec_;
  const PodGroupState group_;
  const QueueState& queue_;
  const int64_t now_;
  Plan* plan_;
  api::JobStatus& status_;
};

void Decider::Finish(bool ok, const std::string& reason, const std::string& message) {
  const api::JobPhase phase = ok ? api::JobPhase::kSucceeded : api::JobPhase::kFailed;
  const std::string why = std::string("Job") + api::PhaseName(phase);
  SetPhase(phase);
  Set(ok ? api::kSucceeded : api::kFailed, true, reason, message);
  SetIfPresent(api::kRunning, false, why, message);
  if (Is(api::kRestarting, true)) Set(api::kRestarting, false, why, "");
  if (!status_.completion_time) status_.completion_time = now_;
  if (ok) {
    status_.model_path = ModelPath(job_);
    status_.model = ModelOnClaim(job_);
  }
  AfterFinish();
}

void Decider::AfterFinish() {
  const FinishedJobPlan after = PlanFinishedJob(spec_, status_, now_);
  plan_->pods = after.pods;
  if (after.delete_job) plan_->delete_job = true;
  if (after.requeue_after > 0) Requeue(after.requeue_after);
}

// A spec.env name or a template field the operator owns: the job fails before any pod exists.
bool Decider::InvalidSpec() {
  Status valid = api::CheckSpecEnv(spec_.env);
  if (valid.ok()) valid = CheckPodTemplate(job_);
  if (valid.ok()) return false;
  Finish(false, "InvalidSpec", valid.message());
  return true;
}

void Decider::Suspend(const std::vector<api::ObservedPod>& owned) {
  SetPhase(api::JobPhase::kSuspended);
  Set(api::kSuspended, true, "Suspended",
      "spec.runPolicy.suspend is true: the rank pods are deleted");
  SetIfPresent(api::kRunning, false, "JobSuspended", "suspended");
  SetIfPresent(api::kPodsReady, false, "JobSuspended", "suspended");
  plan_->pods = PodAction::kStop;
  if (queue_.wanted) {
    plan_->workload = DecideSuspendedQueue(queue_, HoldQuota(owned), now_, &status_);
  }
}

// Kueue's admission of a job in a queue (kueue/queue_admission.h), or the resume of one that was
// suspended; true when the job may not run its ranks now (gated, or failed by its Workload).
bool Decider::Queued(const std::vector<api::ObservedPod>& owned, api::JobPhase previous) {
  if (queue_.wanted && !RanksSucceeded(owned)) {
    const QueueDecision q = DecideQueue(queue_, HoldQuota(owned), now_, &status_);
    if (!q.fail_reason.empty()) {
      Finish(false, q.fail_reason, q.fail_message);
      return true;
    }
    plan_->workload = q.workload;
    if (q.recheck) Requeue(kQueueRecheckSeconds);
    if (q.gated) plan_->pods = PodAction::kStop;
    return q.gated;
  }
  if (previous == api::JobPhase::kSuspended) {
    Set(api::kSuspended, false, "Resumed",
        "spec.runPolicy.suspend is false: the ranks resume from the latest checkpoint");
    status_.start_time = now_;
  }
  return false;
}

bool Decider::Deadline() {
  if (spec_.active_deadline_seconds <= 0 || !status_.start_time) return false;
  const int64_t due = *status_.start_time + spec_.active_deadline_seconds;
  if (now_ < due) {
    Requeue(due - now_);
    return false;
  }
  Finish(false, "DeadlineExceeded",
         "the job ran longer than runPolicy.activeDeadlineSeconds (" +
             std::to_string(spec_.active_deadline_seconds) + " s); its pods were stopped");
  return true;
}

// Condition GangScheduling; true when the PodGroup API is not served (no pods are created).
bool Decider::GangUnavailable(api::JobPhase previous,
                              const std::vector<api::ObservedPod>& current) {
  if (group_ == PodGroupState::kUnavailable) {
    Set(api::kGangScheduling, false, "GangSchedulingUnavailable",
        "the " + spec_.gang_scheduler +
            " PodGroup API is not served by this cluster (is the gang scheduler installed?); "
            "rank pods are not created without their PodGroup");
    if (previous == api::JobPhase::kUnset) SetPhase(api::JobPhase::kPending);
    plan_->pods = current.empty() ? PodAction::kStop : PodAction::kKeep;
    Requeue(kGangRecheckSeconds);
    return true;
  }
  if (group_ != PodGroupState::kNotWanted) {
    Set(api::kGangScheduling, true, "PodGroupCreated",
        "PodGroup " + job_.name + " (minMember " + std::to_string(spec_.gang_min_available) +
            ") for " + spec_.gang_scheduler);
  }
  return false;
}

void Decider::Restart(const RankFailure& f, int generation) {
  const RestartDecision d = DecideRestart(job_, f, generation);
  if (!d.restart) {
    Finish(false, d.reason, d.message);
    return;
  }
  status_.restarts = generation + 1;
  status_.last_restart_time = now_;
  SetPodCounts(PodCounts{}, &status_);
  SetPhase(api::JobPhase::kRestarting);
  Set(api::kRestarting, true, d.reason, d.message);
  SetIfPresent(api::kRunning, false, "JobRestarting", d.failure);
  SetIfPresent(api::kPodsReady, false, "JobRestarting", d.failure);
  plan_->pods = PodAction::kStop;
  Requeue(RestartDelaySeconds(spec_, generation + 1));
}

// Restarting, no pod of this attempt yet: the ranks are recreated once the previous attempt's
// pods are gone and the restart delay has passed.
void Decider::AwaitRecreate(bool stale) {
  SetPhase(api::JobPhase::kRestarting);
  plan_->pods = PodAction::kStop;
  if (stale) return;  // the previous generation is still going away
  if (const int64_t wait = RecreateInSeconds(spec_, status_, now_); wait > 0) {
    Requeue(wait);
    return;
  }
  plan_->pods = PodAction::kRun;
}

// Condition PodsReady (rank_readiness.h); fails the job, and returns true, once a start error
// has lasted startErrorTimeoutSeconds.
bool Decider::PodsReady(const std::vector<api::ObservedPod>& current) {
  const PodsReadyDecision d = DecidePodsReady(spec_, current, now_);
  if (d.requeue_after > 0) Requeue(d.requeue_after);
  Set(api::kPodsReady, d.condition);
  if (!d.timed_out) return false;
  Finish(false, d.timed_out->reason,
         DescribeStartFailure(*d.timed_out, spec_.start_error_timeout_seconds));
  return true;
}

void Decider::Normal(const std::vector<api::ObservedPod>& current, const PodCounts& c) {
  const int n = spec_.replicas;
  const std::string counts = std::to_string(c.running) + "/" + std::to_string(n) + " running, " +
                             std::to_string(c.succeeded) + " succeeded, " +
                             std::to_string(c.failed) + " failed";
  if (static_cast<int>(current.size()) >= n || Has(api::kCreated)) {
    Set(api::kCreated, true, "PodsCreated", "all " + std::to_string(n) + " rank pods were created");
  }
  if (c.succeeded >= n) {
    Finish(true, "AllRanksSucceeded", counts);
    return;
  }
  if (PodsReady(current)) return;
  const bool running = c.running > 0 && c.running + c.succeeded >= n;
  SetPhase(running ? api::JobPhase::kRunning : api::JobPhase::kPending);
  if (running || Has(api::kRunning)) {
    Set(api::kRunning, running, running ? "AllRanksRunning" : "JobPending", counts);
  }
  if (running && Is(api::kRestarting, true)) {
    Set(api::kRestarting, false, "Restarted",
        "all ranks running again after restart " + std::to_string(status_.restarts));
  }
  plan_->pods = PodAction::kRun;
  const UnschedulableRanks u = FindUnschedulable(spec_, current, now_);
  if (u.requeue_after > 0) Requeue(u.requeue_after);
  if (!u.message.empty()) {
    Set(api::kPodsScheduled, false, "Unschedulable", u.message);
  } else {
    SetIfPresent(api::kPodsScheduled, true, "AllRanksScheduled", "");
  }
}

// The gates first (finished, invalid, suspended, queued, past its deadline, no PodGroup API),
// then the ranks of the current attempt: a failure restarts or fails the job, a restart waits for
// its delay, else the ranks start, run and finish.
void Decider::Run(const std::vector<api::ObservedPod>& owned) {
  const api::JobPhase previous = status_.phase;
  if (api::IsFinished(previous)) {
    AfterFinish();
    return;
  }
  if (InvalidSpec()) return;
  Set(api::kCheckpointsPersistent, CheckpointsCondition(job_));
  if (spec_.suspend) {
    Suspend(owned);
    return;
  }
  if (Queued(owned, previous) || Deadline()) return;

  const int generation = status_.restarts;
  const Attempt attempt = CurrentAttempt(owned, generation);
  const PodCounts c = CountPods(attempt.current);
  SetPodCounts(c, &status_);
  if (GangUnavailable(previous, attempt.current)) return;
  if (const std::optional<RankFailure> failed = FirstRankFailure(attempt.current)) {
    Restart(*failed, generation);
  } else if (previous == api::JobPhase::kRestarting && attempt.current.empty()) {
    AwaitRecreate(attempt.stale);
  } else {
    Normal(attempt.current, c);
  }
}

}  // namespace

Plan ComputeStatus(const api::Job& job, const std::vector<api::ObservedPod>& owned_pods,
                   PodGroupState group, int64_t now, const QueueState& queue) {
  Plan plan;
  plan.status = job.status;
  plan.status.observed_generation = job.generation;
  plan.status.ranks = api::WorldSize(job.spec);
  if (!plan.status.start_time) plan.status.start_time = now;
  Decider(job, group, queue, now, &plan).Run(owned_pods);
  if (api::IsFinished(plan.status.phase)) plan.workload = FinishedJobWorkload(queue);
  Summarize(&plan.status);
  plan.events = TransitionEvents(job.status, plan.status, job.spec.replicas,
                                 job.spec.start_error_timeout_seconds);
  return plan;
}

}  // namespace petname::controller
