// Kueue's Workload (kueue.x-k8s.io/v1beta2) as the operator reads and writes it: petname is one of
// Kueue's external frameworks (integrations.externalFrameworks: PetNameTrainingJob.v1alpha1.
// petname.dev), so the operator does what Kueue's jobframework does for built-in kinds. This file
// is the JSON edge; the decisions are in controller/job_status.h (QueueState) and the I/O in
// controller/reconciler.cc.
//
// A job with the label kueue.x-k8s.io/queue-name gets one Workload, named WorkloadName(job), that
// the job controls (ownerReference controller=true: deleting the job deletes it), labelled like
// the job's pods plus kueue.x-k8s.io/job-uid, with one pod set "ranks": count = replicas, minCount
// = elasticPolicy.minReplicas when it is lower (partial admission), and the rank pod's template
// (its requests, GPUs included, and the processes per pod are in it). The job's label
// kueue.x-k8s.io/priority-class names a WorkloadPriorityClass whose value becomes the Workload's
// priority. It is created with Kueue's finalizer kueue.x-k8s.io/resource-in-use, which the
// operator removes once the job's pods are gone (controller/workload_finalizer.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::api {

inline constexpr char kKueueApiVersion[] = "kueue.x-k8s.io/v1beta2";
inline constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
inline constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
inline constexpr char kJobUidLabel[] = "kueue.x-k8s.io/job-uid";
inline constexpr char kPodSetName[] = "ranks";
inline constexpr char kResourceInUseFinalizer[] = "kueue.x-k8s.io/resource-in-use";

// The job's queue (the label's value), "" when it has none.
std::string QueueName(const Job& job);

// "petnametrainingjob-<name>-<first 5 hex of sha256(uid)>", at most 63 characters.
std::string WorkloadName(const Job& job);

// What the operator reads of a Workload.
struct WorkloadState {
  bool exists = false;
  std::string name;
  bool deleting = false;  // metadata.deletionTimestamp is set
  bool in_use = false;    // it carries kResourceInUseFinalizer
  bool quota_reserved = false;
  bool admitted = false;
  bool evicted = false;
  std::string evicted_reason;  // Preempted, PodsReadyTimeout, Deactivated, ...
  std::string evicted_message;
  bool finished = false;
  std::string finished_reason;  // Succeeded, Failed, FailedToStart, ...
  std::string finished_message;
  std::optional<bool> pods_ready;              // condition PodsReady, when present
  std::string pods_ready_reason;               // its reason (WaitForStart, Started, ...)
  std::string cluster_queue;                   // status.admission.clusterQueue
  int admitted_count = 0;                      // the pod set's admitted count (0: not admitted)
  std::map<std::string, std::string> flavors;  // resource -> ResourceFlavor of the assignment
  std::string pending_message;                 // QuotaReserved False's message (why it waits)
  // The podSetUpdates for pod set "ranks" of status.admissionChecks (Kueue admits a Workload once
  // every check is Ready), in the checks' order.
  Json pod_set_updates = Json::array();
};

WorkloadState WorkloadStateFromJson(const Json& wl);

// The Workload to create for `job`, with `pod` (a rank pod as Desired renders it) as the pod set's
// template and `priority` (of the job's WorkloadPriorityClass) when it has one.
Json BuildWorkload(const Job& job, const Json& pod, std::optional<int32_t> priority);

// The Workload with its status changed as Kueue's jobframework does once an evicted job has no
// pods left: condition Requeued (True for Preempted and NodeFailures), QuotaReserved False
// (reason Pending), Admitted False (NoReservation), status.admission removed. `now`: Unix seconds.
Json ClearReservation(const Json& wl, int64_t now);

// The Workload with condition Finished True (`reason`: Succeeded, Failed, or FailedToStart when
// the admission cannot be applied to the job): Kueue releases its quota.
Json FinishWorkload(const Json& wl, const std::string& reason, const std::string& message,
                    int64_t now);

// A condition of the Workload as the operator writes it.
struct WorkloadCondition {
  bool status = false;
  std::string reason;
  std::string message;
};

// The Workload with condition PodsReady set to `c` (for Kueue's waitForPodsReady).
Json SetWorkloadPodsReady(const Json& wl, const WorkloadCondition& c, int64_t now);

// The Workload without kResourceInUseFinalizer (its other finalizers kept).
Json WithoutResourceInUse(const Json& wl);

}  // namespace petname::api
