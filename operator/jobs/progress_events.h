// ProgressEvents: the Kubernetes Events that a change of a job's status.progress calls for
// (pure). Today one: a Warning CheckpointFailed when rank 0 reports checkpoint saves that failed
// (status.progress.checkpointFailures, read from petname_checkpoint_failures_total), recorded
// each time that count changes to a non-zero value: more failures in this run, or failures in a
// new run after a restart. Training goes on after a failed save (the previous checkpoint stays
// valid), so the event is how `kubectl describe` shows a volume that has filled up.
#pragma once

#include <vector>

#include "operator/api/job_status.h"
#include "operator/jobs/lifecycle.h"

namespace petname::controller {

std::vector<JobEvent> ProgressEvents(const api::JobStatus& before, const api::JobStatus& after);

}  // namespace petname::controller
