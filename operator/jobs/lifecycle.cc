#include "operator/jobs/lifecycle.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "operator/api/conditions.h"
#include "operator/api/reserved_env.h"
#include "operator/jobs/job_events.h"
#include "operator/jobs/job_outputs.h"
#include "operator/jobs/pod_failure.h"
#include "operator/jobs/pod_start.h"
#include "operator/jobs/rank_logs.h"
#include "operator/jobs/status_summary.h"
#include "operator/kueue/pod_quota.h"

namespace petname::controller {
namespace {

constexpr int64_t kMaxRestartDelaySeconds = 300;
constexpr int64_t kGangRecheckSeconds = 30;

struct Counts {
  int pending = 0, running = 0, ready = 0, succeeded = 0, failed = 0;
};

Counts Count(const std::vector<api::ObservedPod>& pods) {
  Counts c;
  for (const api::ObservedPod& pod : pods) {
    if (pod.phase == "Running") {
      ++c.running;
      if (pod.ConditionTrue("Ready")) ++c.ready;
    } else if (pod.phase == "Succeeded") {
      ++c.succeeded;
    } else if (pod.phase == "Failed") {
      ++c.failed;
    } else {
      ++c.pending;
    }
  }
  return c;
}

void SetCounts(const Counts& c, api::JobStatus* status) {
  status->active = c.pending + c.running;
  status->ready = c.ready;
  status->succeeded = c.succeeded;
  status->failed = c.failed;
}

std::string CondReason(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? c->reason : "";
}

// Keeps only letters and digits (a valid condition/event reason); "RankFailed" when empty.
std::string Reason(const std::string& raw) {
  std::string out;
  for (char ch : raw) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
      out += ch;
    }
  }
  if (out.empty() || !((out[0] >= 'a' && out[0] <= 'z') || (out[0] >= 'A' && out[0] <= 'Z'))) {
    return "RankFailed";
  }
  return out;
}

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
    const auto succeeded =
        std::count_if(owned.begin(), owned.end(), [this](const api::ObservedPod& pod) {
          return !pod.deleting && pod.restart_generation == status_.restarts &&
                 pod.phase == "Succeeded";
        });
    return spec_.replicas > 0 && succeeded >= spec_.replicas;
  }
  bool Has(const char* type) const { return api::FindCondition(status_.conditions, type); }
  bool Is(const char* type, bool value) const {
    return api::ConditionIs(status_.conditions, type, value);
  }
  void Set(const char* type, bool value, const std::string& reason, const std::string& msg) {
    api::SetCondition(&status_.conditions, type, value, reason, msg, now_);
  }
  void SetIfPresent(const char* type, bool value, const std::string& reason,
                    const std::string& msg) {
    if (Has(type)) Set(type, value, reason, msg);
  }
  void Finish(bool ok, const std::string& reason, const std::string& message);
  void AfterFinish();
  bool Deadline();
  void Restart(const RankFailure& f, int generation);
  void Normal(const std::vector<api::ObservedPod>& current, const Counts& c);
  bool PodsReady(const std::vector<api::ObservedPod>& current);
  void Unschedulable(const std::vector<api::ObservedPod>& current);

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
  const bool deadline = CondReason(status_, api::kFailed) == "DeadlineExceeded";
  if (spec_.clean_pod_policy == "All") {
    plan_->pods = PodAction::kCleanupAll;
  } else if (spec_.clean_pod_policy == "None" && !deadline) {
    plan_->pods = PodAction::kKeep;
  } else {
    plan_->pods = PodAction::kCleanupRunning;
  }
  if (spec_.ttl_seconds_after_finished < 0 || !status_.completion_time) return;
  const int64_t due = *status_.completion_time + spec_.ttl_seconds_after_finished;
  if (now_ >= due) {
    plan_->delete_job = true;
  } else {
    Requeue(due - now_);
  }
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

void Decider::Restart(const RankFailure& f, int generation) {
  const std::string hint = RankLogHint(job_, f, generation);
  const std::string what =
      Describe(f, api::ProcessesPerPod(spec_)) + (hint.empty() ? "" : "; " + hint);
  if (CheckpointDirUnusable(f)) {
    Finish(false, "CheckpointDirUnusable",
           what + " (the checkpoint directory cannot be written; not retried)");
    return;
  }
  if (DataFetchFailed(f)) {
    Finish(false, "DataFetchFailed",
           what + " (spec.dataset.url could not be fetched; not retried)");
    return;
  }
  if (!Retryable(spec_.restart_policy, f)) {
    Finish(false, "RankFailed",
           what + " (not retried under restartPolicy " + spec_.restart_policy + ")");
    return;
  }
  if (generation >= spec_.backoff_limit) {
    Finish(false, "BackoffLimitExceeded",
           "the job was restarted " + std::to_string(generation) +
               " times (runPolicy.backoffLimit " + std::to_string(spec_.backoff_limit) +
               "); last failure: " + what);
    return;
  }
  status_.restarts = generation + 1;
  status_.last_restart_time = now_;
  SetCounts(Counts{}, &status_);
  SetPhase(api::JobPhase::kRestarting);
  Set(api::kRestarting, true, Reason(f.reason),
      what + "; restarting all ranks from the latest checkpoint (restart " +
          std::to_string(generation + 1) + " of at most " + std::to_string(spec_.backoff_limit) +
          ")");
  SetIfPresent(api::kRunning, false, "JobRestarting", what);
  SetIfPresent(api::kPodsReady, false, "JobRestarting", what);
  plan_->pods = PodAction::kStop;
  Requeue(RestartDelaySeconds(spec_, generation + 1));
}

void Decider::Unschedulable(const std::vector<api::ObservedPod>& current) {
  std::string message;
  for (const api::ObservedPod& pod : current) {
    const api::PodCondition* cond = pod.Condition("PodScheduled");
    if (!(pod.phase.empty() || pod.phase == "Pending") || cond == nullptr ||
        cond->status != "False" || cond->reason != "Unschedulable") {
      continue;
    }
    const int64_t since = cond->last_transition_time.value_or(now_);
    const int64_t due = since + spec_.unschedulable_after_seconds;
    if (now_ < due) {
      Requeue(due - now_);
      continue;
    }
    if (!message.empty()) message += "; ";
    message += pod.name + ": " + (cond->message.empty() ? "cannot be scheduled" : cond->message);
  }
  if (!message.empty()) {
    Set(api::kPodsScheduled, false, "Unschedulable", message);
  } else {
    SetIfPresent(api::kPodsScheduled, true, "AllRanksScheduled", "");
  }
}

// Condition PodsReady (see api/conditions.h); fails the job, and returns true, once a start error
// has lasted startErrorTimeoutSeconds.
bool Decider::PodsReady(const std::vector<api::ObservedPod>& current) {
  std::vector<StartBlock> blocks;
  int ready = 0;
  for (const api::ObservedPod& pod : current) {
    StartBlock b;
    if (PodStartBlocked(pod, now_, &b)) blocks.push_back(std::move(b));
    if (pod.phase == "Succeeded" || (pod.phase == "Running" && pod.ConditionTrue("Ready"))) {
      ++ready;
    }
  }
  // Start errors first (they fail the job), then by rank.
  std::stable_sort(blocks.begin(), blocks.end(), [](const StartBlock& a, const StartBlock& b) {
    return a.start_error != b.start_error ? a.start_error : a.rank < b.rank;
  });
  const int64_t timeout = spec_.start_error_timeout_seconds;
  std::string message;
  for (const StartBlock& b : blocks) {
    if (b.start_error && now_ >= b.since + timeout) {
      Set(api::kPodsReady, false, b.reason, DescribeBlock(b));
      Finish(false, b.reason, DescribeStartFailure(b, timeout));
      return true;
    }
    if (b.start_error) Requeue(b.since + timeout - now_);
    message += (message.empty() ? "" : "; ") + DescribeBlock(b);
  }
  const int n = spec_.replicas;
  if (!blocks.empty()) {
    Set(api::kPodsReady, false, blocks.front().reason, message);
  } else if (ready >= n) {
    Set(api::kPodsReady, true, "AllRanksReady",
        "all " + std::to_string(n) + " rank pods are ready");
  } else {
    Set(api::kPodsReady, false, "PodsStarting",
        std::to_string(ready) + "/" + std::to_string(n) + " rank pods ready");
  }
  return false;
}

void Decider::Normal(const std::vector<api::ObservedPod>& current, const Counts& c) {
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
  Unschedulable(current);
}

void Decider::Run(const std::vector<api::ObservedPod>& owned) {
  const api::JobPhase previous = status_.phase;
  if (api::IsFinished(previous)) {
    AfterFinish();
    return;
  }
  if (const Status env = api::CheckSpecEnv(spec_.env); !env.ok()) {
    Finish(false, "InvalidSpec", env.message());
    return;
  }
  if (const Status valid = CheckPodTemplate(job_); !valid.ok()) {
    Finish(false, "InvalidSpec", valid.message());
    return;
  }
  const ConditionValue checkpoints = CheckpointsCondition(job_);
  Set(api::kCheckpointsPersistent, checkpoints.status, checkpoints.reason, checkpoints.message);
  if (spec_.suspend) {
    SetPhase(api::JobPhase::kSuspended);
    Set(api::kSuspended, true, "Suspended",
        "spec.runPolicy.suspend is true: the rank pods are deleted");
    SetIfPresent(api::kRunning, false, "JobSuspended", "suspended");
    SetIfPresent(api::kPodsReady, false, "JobSuspended", "suspended");
    plan_->pods = PodAction::kStop;
    if (queue_.wanted)
      plan_->workload = DecideSuspendedQueue(queue_, HoldQuota(owned), now_, &status_);
    return;
  }
  if (queue_.wanted && !RanksSucceeded(owned)) {
    const QueueDecision q = DecideQueue(queue_, HoldQuota(owned), now_, &status_);
    if (!q.fail_reason.empty()) {
      Finish(false, q.fail_reason, q.fail_message);
      return;
    }
    plan_->workload = q.workload;
    if (q.recheck) Requeue(kQueueRecheckSeconds);
    if (q.gated) {
      plan_->pods = PodAction::kStop;
      return;
    }
  } else if (previous == api::JobPhase::kSuspended) {
    Set(api::kSuspended, false, "Resumed",
        "spec.runPolicy.suspend is false: the ranks resume from the latest checkpoint");
    status_.start_time = now_;
  }
  if (Deadline()) return;

  const int generation = status_.restarts;
  std::vector<api::ObservedPod> current;
  bool stale = false;
  for (const api::ObservedPod& pod : owned) {
    if (!pod.deleting && pod.restart_generation == generation) {
      current.push_back(pod);
    } else {
      stale = true;
    }
  }
  const Counts c = Count(current);
  SetCounts(c, &status_);

  if (group_ == PodGroupState::kUnavailable) {
    Set(api::kGangScheduling, false, "GangSchedulingUnavailable",
        "the " + spec_.gang_scheduler +
            " PodGroup API is not served by this cluster (is the gang scheduler installed?); "
            "rank pods are not created without their PodGroup");
    if (previous == api::JobPhase::kUnset) SetPhase(api::JobPhase::kPending);
    plan_->pods = current.empty() ? PodAction::kStop : PodAction::kKeep;
    Requeue(kGangRecheckSeconds);
    return;
  }
  if (group_ != PodGroupState::kNotWanted) {
    Set(api::kGangScheduling, true, "PodGroupCreated",
        "PodGroup " + job_.name + " (minMember " + std::to_string(spec_.gang_min_available) +
            ") for " + spec_.gang_scheduler);
  }

  bool failed = false;
  RankFailure first;
  for (const api::ObservedPod& pod : current) {
    RankFailure f;
    if (PodFailed(pod, &f) && (!failed || f.rank < first.rank)) {
      first = f;
      failed = true;
    }
  }
  if (failed) {
    Restart(first, generation);
    return;
  }
  if (previous == api::JobPhase::kRestarting && current.empty()) {
    SetPhase(api::JobPhase::kRestarting);
    plan_->pods = PodAction::kStop;
    if (stale) return;  // the previous generation is still going away
    const int64_t last = status_.last_restart_time.value_or(now_);
    const int64_t due = last + RestartDelaySeconds(spec_, generation);
    if (now_ < due) {
      Requeue(due - now_);
      return;
    }
    plan_->pods = PodAction::kRun;
    return;
  }
  Normal(current, c);
}

}  // namespace

int64_t RestartDelaySeconds(const api::JobSpec& spec, int restarts) {
  int64_t delay = spec.restart_backoff_seconds;
  for (int i = 1; i < restarts && delay < kMaxRestartDelaySeconds; ++i) delay *= 2;
  return std::min(delay, kMaxRestartDelaySeconds);
}

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
