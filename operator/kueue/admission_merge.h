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
// Workload with reason FailedToStart; so does the operator for an admission by topology.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/kueue/workload.h"

namespace petname::api {

// Merges `flavors` (ResourceFlavor objects) and `pod_set_updates` into *spec. On a conflict:
// FailedPrecondition naming the field, the key and both values, and *spec is unchanged.
Status MergeAdmission(const std::vector<Json>& flavors, const Json& pod_set_updates, JobSpec* spec);

// A pod set update with the labels Kueue v0.17's jobframework puts on the pods of an admitted
// Workload `wl` (getPodSetsInfoFromStatus): kueue.x-k8s.io/podset, the pod set's name, and, with
// AssignQueueLabelsForPods (beta, on by default), kueue.x-k8s.io/local-queue-name (spec.queueName)
// and kueue.x-k8s.io/cluster-queue-name (when the ClusterQueue's name is a DNS-1123 label). Merged
// first, as Kueue merges them before the admission checks' updates.
Json KueuePodLabels(const Json& wl);

// FailedPrecondition when Kueue's topology-aware scheduling placed the admission (the assignment
// has a topologyAssignment or a delayed topology request, or an assigned flavor names a
// topology): Kueue's own jobs follow it through a scheduling gate and per-pod topology
// annotations that the rank pods do not have, so they would run outside the assigned domains while
// the quota counts them there. Ok otherwise.
Status TopologyRefusal(const WorkloadState& wl, const std::vector<Json>& flavors);

}  // namespace petname::api
