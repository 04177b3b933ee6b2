#include "operator/jobs/job_events.h"

#include <string>

#include "operator/api/conditions.h"
#include "operator/jobs/pod_start.h"
#include "operator/kueue/queue_admission.h"

namespace petname::controller {
namespace {

std::string CondReason(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? c->reason : "";
}

std::string CondMessage(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c != nullptr ? c->message : "";
}

// PodsReady is False with a start error.
bool StartErrorReason(const api::JobStatus& status) {
  return api::ConditionIs(status.conditions, api::kPodsReady, false) &&
         IsStartError(CondReason(status, api::kPodsReady));
}

}  // namespace

std::vector<JobEvent> TransitionEvents(const api::JobStatus& before, const api::JobStatus& after,
                                       int replicas, int64_t start_error_timeout_seconds) {
  std::vector<JobEvent> out;
  const api::JobPhase was = before.phase, is = after.phase;
  auto became = [&](const char* type, bool value) {
    return api::ConditionIs(after.conditions, type, value) &&
           !api::ConditionIs(before.conditions, type, value);
  };
  if (became(api::kCreated, true)) {
    out.push_back({"Normal", "Created", "rank pods created: " + std::to_string(replicas)});
  }
  if (after.restarts > before.restarts) {
    out.push_back({"Warning", "Restarting", CondMessage(after, api::kRestarting)});
  }
  if (is != was && is == api::JobPhase::kSucceeded) {
    out.push_back({"Normal", "Succeeded", CondMessage(after, api::kSucceeded)});
  }
  if (is != was && is == api::JobPhase::kFailed) {
    out.push_back({"Warning", CondReason(after, api::kFailed), CondMessage(after, api::kFailed)});
  }
  if (is != was && is == api::JobPhase::kSuspended) {
    // Suspended, or Kueue's WaitingForAdmission, Preempted, Deactivated, ...
    // (kueue/queue_admission.h).
    const std::string reason = CondReason(after, api::kSuspended);
    out.push_back({QueueProblem(reason) ? "Warning" : "Normal",
                   reason.empty() ? "Suspended" : reason, CondMessage(after, api::kSuspended)});
  }
  if (CondReason(after, api::kSuspended) == "Admitted" &&
      api::ConditionIs(before.conditions, api::kSuspended, true)) {
    out.push_back({"Normal", "Admitted", CondMessage(after, api::kSuspended)});
  }
  if (CondReason(after, api::kSuspended) == "Resumed" &&
      api::ConditionIs(before.conditions, api::kSuspended, true)) {
    out.push_back({"Normal", "Resumed", CondMessage(after, api::kSuspended)});
  }
  if (became(api::kPodsScheduled, false)) {
    out.push_back({"Warning", "Unschedulable", CondMessage(after, api::kPodsScheduled)});
  }
  if (became(api::kCheckpointsPersistent, false)) {
    out.push_back(
        {"Warning", "CheckpointsNotPersistent", CondMessage(after, api::kCheckpointsPersistent)});
  }
  if (is != api::JobPhase::kFailed && StartErrorReason(after) && !StartErrorReason(before)) {
    out.push_back({"Warning", CondReason(after, api::kPodsReady),
                   CondMessage(after, api::kPodsReady) + "; the job fails if it has not started " +
                       "within runPolicy.startErrorTimeoutSeconds (" +
                       std::to_string(start_error_timeout_seconds) + " s)"});
  }
  if (became(api::kGangScheduling, false)) {
    out.push_back(
        {"Warning", "GangSchedulingUnavailable", CondMessage(after, api::kGangScheduling)});
  }
  return out;
}

}  // namespace petname::controller
