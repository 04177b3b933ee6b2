#include "operator/controller/job_status.h"

#include <algorithm>

#include "operator/api/conditions.h"
#include "operator/controller/pod_failure.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr int64_t kMaxRestartDelaySeconds = 300;
constexpr int64_t kGangRecheckSeconds = 30;

struct Counts {
  int pending = 0, running = 0, ready = 0, succeeded = 0, failed = 0;
};

bool HasCondition(const Json& pod, const std::string& type, const std::string& status,
                  Json* found = nullptr) {
  Json::json_pointer ptr("/status/conditions");
  if (!pod.contains(ptr) || !pod.at(ptr).is_array()) return false;
  for (const Json& c : pod.at(ptr)) {
    if (c.value("type", "") != type) continue;
    if (found != nullptr) *found = c;
    return c.value("status", "") == status;
  }
  return false;
}

Counts Count(const std::vector<Json>& pods) {
  Counts c;
  for (const Json& pod : pods) {
    std::string phase = kube::StringAt(pod, "/status/phase");
    if (phase == "Running") {
      ++c.running;
      if (HasCondition(pod, "Ready", "True")) ++c.ready;
    } else if (phase == "Succeeded") {
      ++c.succeeded;
    } else if (phase == "Failed") {
      ++c.failed;
    } else {
      ++c.pending;
    }
  }
  return c;
}

void SetCounts(const Counts& c, Json* status) {
  (*status)["active"] = c.pending + c.running;
  (*status)["ready"] = c.ready;
  (*status)["succeeded"] = c.succeeded;
  (*status)["failed"] = c.failed;
}

bool CondIs(const Json& status, const std::string& type, const std::string& value) {
  Json c = api::FindCondition(status.value("conditions", Json()), type);
  return c.is_object() && c.value("status", "") == value;
}

std::string CondField(const Json& status, const std::string& type, const char* field) {
  Json c = api::FindCondition(status.value("conditions", Json()), type);
  return c.is_object() ? c.value(field, "") : "";
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
  Decider(const api::Job& job, PodGroupState group, int64_t now, Plan* plan)
      : job_(job),
        spec_(job.spec),
        group_(group),
        now_(now),
        now_s_(kube::FormatTime(now)),
        plan_(plan),
        status_(plan->status),
        conds_(plan->status["conditions"]) {}

  void Run(const std::vector<Json>& owned);

 private:
  void Requeue(int64_t seconds) {
    seconds = std::max<int64_t>(seconds, 1);
    if (plan_->requeue_after == 0 || seconds < plan_->requeue_after) {
      plan_->requeue_after = seconds;
    }
  }
  void SetPhase(const std::string& phase) { status_["phase"] = phase; }
  void Set(const char* type, bool value, const std::string& reason, const std::string& msg) {
    api::SetCondition(&conds_, type, value, reason, msg, now_s_);
  }
  void SetIfPresent(const char* type, bool value, const std::string& reason,
                    const std::string& msg) {
    if (api::FindCondition(conds_, type).is_object()) Set(type, value, reason, msg);
  }
  void Finish(bool ok, const std::string& reason, const std::string& message);
  void AfterFinish();
  bool Deadline();
  void Restart(const RankFailure& f, int generation);
  void Normal(const std::vector<Json>& current, const Counts& c);
  void Unschedulable(const std::vector<Json>& current);

  const api::Job& job_;
  const api::JobSpec& spec_;
  const PodGroupState group_;
  const int64_t now_;
  const std::string now_s_;
  Plan* plan_;
  Json& status_;
  Json& conds_;
};

void Decider::Finish(bool ok, const std::string& reason, const std::string& message) {
  const std::string phase = ok ? "Succeeded" : "Failed";
  SetPhase(phase);
  Set(ok ? api::kSucceeded : api::kFailed, true, reason, message);
  SetIfPresent(api::kRunning, false, "Job" + phase, message);
  if (CondIs(status_, api::kRestarting, "True")) Set(api::kRestarting, false, "Job" + phase, "");
  if (!status_.contains("completionTime")) status_["completionTime"] = now_s_;
  AfterFinish();
}

void Decider::AfterFinish() {
  const bool deadline = CondField(status_, api::kFailed, "reason") == "DeadlineExceeded";
  if (spec_.clean_pod_policy == "All") {
    plan_->pods = PodAction::kCleanupAll;
  } else if (spec_.clean_pod_policy == "None" && !deadline) {
    plan_->pods = PodAction::kKeep;
  } else {
    plan_->pods = PodAction::kCleanupRunning;
  }
  int64_t completed = 0;
  if (spec_.ttl_seconds_after_finished < 0 ||
      !kube::ParseTime(status_.value("completionTime", ""), &completed)) {
    return;
  }
  const int64_t due = completed + spec_.ttl_seconds_after_finished;
  if (now_ >= due) {
    plan_->delete_job = true;
  } else {
    Requeue(due - now_);
  }
}

bool Decider::Deadline() {
  int64_t start = 0;
  if (spec_.active_deadline_seconds <= 0 ||
      !kube::ParseTime(status_.value("startTime", ""), &start)) {
    return false;
  }
  const int64_t due = start + spec_.active_deadline_seconds;
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
  const std::string what = Describe(f, api::ProcessesPerPod(spec_));
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
  status_["restarts"] = generation + 1;
  status_["lastRestartTime"] = now_s_;
  SetCounts(Counts{}, &status_);
  SetPhase("Restarting");
  Set(api::kRestarting, true, Reason(f.reason),
      what + "; restarting all ranks from the latest checkpoint (restart " +
          std::to_string(generation + 1) + " of at most " + std::to_string(spec_.backoff_limit) +
          ")");
  SetIfPresent(api::kRunning, false, "JobRestarting", what);
  plan_->pods = PodAction::kStop;
  Requeue(RestartDelaySeconds(spec_, generation + 1));
}

void Decider::Unschedulable(const std::vector<Json>& current) {
  std::string message;
  for (const Json& pod : current) {
    const std::string phase = kube::StringAt(pod, "/status/phase");
    Json cond;
    if (!(phase.empty() || phase == "Pending") ||
        !HasCondition(pod, "PodScheduled", "False", &cond) ||
        cond.value("reason", "") != "Unschedulable") {
      continue;
    }
    int64_t since = now_;
    kube::ParseTime(cond.value("lastTransitionTime", ""), &since);
    const int64_t due = since + spec_.unschedulable_after_seconds;
    if (now_ < due) {
      Requeue(due - now_);
      continue;
    }
    if (!message.empty()) message += "; ";
    message += kube::Name(pod) + ": " + cond.value("message", "cannot be scheduled");
  }
  if (!message.empty()) {
    Set(api::kPodsScheduled, false, "Unschedulable", message);
  } else {
    SetIfPresent(api::kPodsScheduled, true, "AllRanksScheduled", "");
  }
}

void Decider::Normal(const std::vector<Json>& current, const Counts& c) {
  const int n = spec_.replicas;
  const std::string counts = std::to_string(c.running) + "/" + std::to_string(n) + " running, " +
                             std::to_string(c.succeeded) + " succeeded, " +
                             std::to_string(c.failed) + " failed";
  if (static_cast<int>(current.size()) >= n ||
      api::FindCondition(conds_, api::kCreated).is_object()) {
    Set(api::kCreated, true, "PodsCreated", "all " + std::to_string(n) + " rank pods were created");
  }
  if (c.succeeded >= n) {
    Finish(true, "AllRanksSucceeded", counts);
    return;
  }
  const bool running = c.running > 0 && c.running + c.succeeded >= n;
  SetPhase(running ? "Running" : "Pending");
  if (running || api::FindCondition(conds_, api::kRunning).is_object()) {
    Set(api::kRunning, running, running ? "AllRanksRunning" : "JobPending", counts);
  }
  if (running && CondIs(status_, api::kRestarting, "True")) {
    Set(api::kRestarting, false, "Restarted",
        "all ranks running again after restart " + std::to_string(status_.value("restarts", 0)));
  }
  plan_->pods = PodAction::kRun;
  Unschedulable(current);
}

void Decider::Run(const std::vector<Json>& owned) {
  const std::string previous = status_.value("phase", "");
  if (previous == "Succeeded" || previous == "Failed") {
    AfterFinish();
    return;
  }
  if (const Status valid = CheckPodTemplate(job_); !valid.ok()) {
    Finish(false, "InvalidSpec", valid.message());
    return;
  }
  if (spec_.suspend) {
    SetPhase("Suspended");
    Set(api::kSuspended, true, "Suspended",
        "spec.runPolicy.suspend is true: the rank pods are deleted");
    SetIfPresent(api::kRunning, false, "JobSuspended", "suspended");
    plan_->pods = PodAction::kStop;
    return;
  }
  if (previous == "Suspended") {
    Set(api::kSuspended, false, "Resumed",
        "spec.runPolicy.suspend is false: the ranks resume from the latest checkpoint");
    status_["startTime"] = now_s_;
  }
  if (Deadline()) return;

  const int generation = status_.value("restarts", 0);
  std::vector<Json> current;
  bool stale = false;
  for (const Json& pod : owned) {
    if (kube::StringAt(pod, "/metadata/deletionTimestamp").empty() &&
        PodGeneration(pod) == generation) {
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
    if (previous.empty()) SetPhase("Pending");
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
  for (const Json& pod : current) {
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
  if (previous == "Restarting" && current.empty()) {
    SetPhase("Restarting");
    plan_->pods = PodAction::kStop;
    if (stale) return;  // the previous generation is still going away
    int64_t last = now_;
    kube::ParseTime(status_.value("lastRestartTime", ""), &last);
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

std::vector<JobEvent> TransitionEvents(const Json& before, const Json& after, int replicas) {
  std::vector<JobEvent> out;
  const std::string was = before.value("phase", ""), is = after.value("phase", "");
  if (CondIs(after, api::kCreated, "True") && !CondIs(before, api::kCreated, "True")) {
    out.push_back({"Normal", "Created", "rank pods created: " + std::to_string(replicas)});
  }
  if (after.value("restarts", 0) > before.value("restarts", 0)) {
    out.push_back({"Warning", "Restarting", CondField(after, api::kRestarting, "message")});
  }
  if (is != was && is == "Succeeded") {
    out.push_back({"Normal", "Succeeded", CondField(after, api::kSucceeded, "message")});
  }
  if (is != was && is == "Failed") {
    out.push_back({"Warning", CondField(after, api::kFailed, "reason"),
                   CondField(after, api::kFailed, "message")});
  }
  if (is != was && is == "Suspended") {
    out.push_back({"Normal", "Suspended", CondField(after, api::kSuspended, "message")});
  }
  if (CondField(after, api::kSuspended, "reason") == "Resumed" &&
      CondIs(before, api::kSuspended, "True")) {
    out.push_back({"Normal", "Resumed", CondField(after, api::kSuspended, "message")});
  }
  if (CondIs(after, api::kPodsScheduled, "False") &&
      !CondIs(before, api::kPodsScheduled, "False")) {
    out.push_back({"Warning", "Unschedulable", CondField(after, api::kPodsScheduled, "message")});
  }
  if (CondIs(after, api::kGangScheduling, "False") &&
      !CondIs(before, api::kGangScheduling, "False")) {
    out.push_back({"Warning", "GangSchedulingUnavailable",
                   CondField(after, api::kGangScheduling, "message")});
  }
  return out;
}

}  // namespace

int64_t RestartDelaySeconds(const api::JobSpec& spec, int restarts) {
  int64_t delay = spec.restart_backoff_seconds;
  for (int i = 1; i < restarts && delay < kMaxRestartDelaySeconds; ++i) delay *= 2;
  return std::min(delay, kMaxRestartDelaySeconds);
}

Plan ComputeStatus(const api::Job& job, const std::vector<Json>& owned_pods, PodGroupState group,
                   int64_t now) {
  Plan plan;
  plan.status = job.status.is_object() ? job.status : Json::object();
  Json& status = plan.status;
  if (!status.contains("restarts") || !status["restarts"].is_number_integer()) {
    status["restarts"] = 0;
  }
  status["observedGeneration"] = job.generation;
  status["ranks"] = api::WorldSize(job.spec);
  if (!status.contains("startTime")) status["startTime"] = kube::FormatTime(now);
  if (!status["conditions"].is_array()) status["conditions"] = Json::array();
  Decider(job, group, now, &plan).Run(owned_pods);
  plan.events = TransitionEvents(job.status, status, job.spec.replicas);
  return plan;
}

}  // namespace petname::controller
