// How a Kueue admission reaches the rank pods, as Kueue v0.17's jobframework starts its own jobs
// (podset.FromAssignment, PodSetInfo.Merge, podset.Merge):
//  - the assigned ResourceFlavors' spec.nodeLabels (the first flavor wins on a key) and
//    spec.tolerations;
//  - then each admission check's podSetUpdate for pod set "ranks" (WorkloadState's
//    pod_set_updates: labels, annotations, nodeSelector, tolerations, e.g. a
//    ProvisioningRequest's); a key it sets to another value than a flavor or an earlier update
//    has is a conflict;
//  - all of it merged into the job: labels and annotations into spec.template.metadata (keys the
//    operator reserves on rank pods, petname.dev/... and the pod-group labels, are left as the
//    operator sets them), nodeSelector and tolerations where the job sets them
//    (spec.template.spec, else spec.scheduling); tolerations are added, without duplicates. A key
//    the job already has with another value is a conflict.
// A conflict cannot be retried away (the job cannot start as admitted): Kueue finishes such a
// Workload with reason FailedToStart.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"

namespace petname::api {

// Merges `flavors` (ResourceFlavor objects) and `pod_set_updates` into *spec. On a conflict:
// FailedPrecondition naming the field, the key and both values, and *spec is unchanged.
Status MergeAdmission(const std::vector<Json>& flavors, const Json& pod_set_updates, JobSpec* spec);

}  // namespace petname::api
