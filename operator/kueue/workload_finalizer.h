// Kueue's finalizer kueue.x-k8s.io/resource-in-use on a job's Workload (api::BuildWorkload puts
// it there at creation, as Kueue's jobframework does for its built-in kinds): Kueue counts a
// Workload's quota until the Workload is gone, so while the finalizer holds a deleted Workload
// (Terminating) nothing else is admitted onto the quota its pods may still use. The operator
// removes the finalizer (a PUT of the cached Workload, queue_sync.h) only once no pod of the job
// holds quota any more (pod_quota.h: gone, Succeeded, Failed, or Terminating past its grace
// period, as on a lost node), and only from a Workload that is done with:
//  - being deleted (by hand, or by the garbage collector with its job);
//  - Finished (the job Succeeded or Failed), so that deleting the job later is not held up;
//  - left by a job that is gone: the job was deleted, or deleted and created again under the
//    same name (another uid).
// Pure: no I/O; the clock comes in as `now` (Unix seconds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/pod.h"
#include "operator/kueue/workload.h"

namespace petname::controller {

// Whether to remove the finalizer from the job's Workload `wl`, given the pods the job controls.
bool ReleaseWorkload(const api::WorkloadState& wl, const std::vector<api::ObservedPod>& pods,
                     int64_t now);

// Of `workloads` (those labelled with one job name, in its namespace), the ones that carry the
// finalizer, are not controlled by `live_uid` (the uid of the job of that name now; "" when there
// is none) and whose own job (label kueue.x-k8s.io/job-uid) controls no pod among `pods` that
// holds quota at `now`: their finalizer is to be removed.
std::vector<nlohmann::json> OrphanedWorkloads(const std::vector<nlohmann::json>& workloads,
                                              const std::vector<nlohmann::json>& pods,
                                              const std::string& live_uid, int64_t now);

}  // namespace petname::controller
