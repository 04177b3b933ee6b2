#include "operator/jobs/finished_job.h"

#include "operator/api/conditions.h"

namespace petname::controller {

FinishedJobPlan PlanFinishedJob(const api::JobSpec& spec, const api::JobStatus& status,
                                int64_t now) {
  FinishedJobPlan out;
  const api::Condition* failed = api::FindCondition(status.conditions, api::kFailed);
  const bool deadline = failed != nullptr && failed->reason == "DeadlineExceeded";
  if (spec.clean_pod_policy == "All") {
    out.pods = PodAction::kCleanupAll;
  } else if (spec.clean_pod_policy == "None" && !deadline) {
    out.pods = PodAction::kKeep;
  }
  if (spec.ttl_seconds_after_finished < 0 || !status.completion_time) return out;
  const int64_t due = *status.completion_time + spec.ttl_seconds_after_finished;
  if (now >= due) {
    out.delete_job = true;
  } else {
    out.requeue_after = due - now;
  }
  return out;
}

}  // namespace petname::controller
