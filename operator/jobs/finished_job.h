// What becomes of a finished PetNameTrainingJob (Succeeded or Failed) and its pods. Pure.
//
//  - runPolicy.cleanPodPolicy: Running deletes the rank pods that have not finished
//    (kCleanupRunning), All deletes every one (kCleanupAll), None keeps them for inspection
//    (kKeep) unless the job failed with DeadlineExceeded, whose running pods are deleted whatever
//    cleanPodPolicy says;
//  - runPolicy.ttlSecondsAfterFinished (>= 0): the job is deleted once completionTime + TTL has
//    passed (the garbage collector removes what it owns), and looked at again then.
#pragma once

#include <cstdint>

#include "operator/api/job.h"
#include "operator/api/job_status.h"
#include "operator/jobs/desired.h"

namespace petname::controller {

struct FinishedJobPlan {
  PodAction pods = PodAction::kCleanupRunning;
  bool delete_job = false;
  int64_t requeue_after = 0;  // seconds until the TTL expires; 0: not pending
};

// For a job whose status is finished, at `now`.
FinishedJobPlan PlanFinishedJob(const api::JobSpec& spec, const api::JobStatus& status,
                                int64_t now);

}  // namespace petname::controller
