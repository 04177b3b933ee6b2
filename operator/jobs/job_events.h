// TransitionEvents: the Kubernetes Events that a change of a job's status calls for (pure), one
// per transition from `before` to `after` (so a pass that changes nothing records nothing):
//  - Normal Created (condition Created became True), Succeeded, Suspended (or the reason of a
//    Kueue wait, kueue/queue_admission.h; a Warning for a QueueProblem), Resumed;
//  - Warning Restarting (status.restarts went up), <the Failed reason> (RankFailed,
//    BackoffLimitExceeded, DeadlineExceeded, ImagePullBackOff, ...), Unschedulable (PodsScheduled
//    became False), GangSchedulingUnavailable, CheckpointsNotPersistent (CheckpointsPersistent
//    became False: once per job);
//  - Warning <the start error> (ErrImagePull, ImagePullBackOff, CreateContainerConfigError, ...)
//    when PodsReady became False with a start error (jobs/pod_start.h) and was not already
//    False with one, unless the job failed in the same pass (its Failed event says it). A kubelet
//    that alternates ErrImagePull and ImagePullBackOff so records one event.
#pragma once

#include <cstdint>
#include <vector>

#include "operator/api/job_status.h"
#include "operator/jobs/lifecycle.h"

namespace petname::controller {

std::vector<JobEvent> TransitionEvents(const api::JobStatus& before, const api::JobStatus& after,
                                       int replicas, int64_t start_error_timeout_seconds);

}  // namespace petname::controller
