// Kueue's Workload (kueue.x-k8s.io/v1beta2) as the operator reads and writes it: petname is one of
// Kueue's external frameworks (integrations.externalFrameworks: PetNameTrainingJob.v1alpha1.
// petname.dev), so the operator does what Kueue's jobframework does for built-in kinds. This file
// is the JSON edge; the decisions are in queue_admission.h (QueueState) and the I/O in
// queue_sync.h.
//
// A job in a queue gets one Workload, named WorkloadName(job), that the job controls
// (ownerReference controller=true: deleting the job deletes it), as Kueue's jobframework builds
// the Workload of its own kinds (NewWorkload, prepareWorkload):
//  - labels: the job's labels whose keys Kueue's integrations.labelKeysToCopy lists, then the
//    operator's (those of the job's pods, and kueue.x-k8s.io/job-uid);
//  - annotations: the job's provreq.kueue.x-k8s.io/* annotations (a ProvisioningRequest's
//    parameters);
//  - one pod set "ranks": count = replicas, minCount = elasticPolicy.minReplicas when it is lower
//    (partial admission), and the rank pod's template (its requests, GPUs included, and the
//    processes per pod are in it);
//  - queueName: the job's label kueue.x-k8s.io/queue-name (none for a job Kueue manages without
//  one);
//  - priority and priorityClassRef: WorkloadPriority;
//  - maximumExecutionTimeSeconds: the job's label kueue.x-k8s.io/max-exec-time-seconds when it is
//    a positive 32-bit number (Kueue deactivates the Workload once it has been admitted that long);
//  - Kueue's finalizer kueue.x-k8s.io/resource-in-use, which the operator removes once the job's
//    pods are gone (kueue/workload_finalizer.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::api {

inline constexpr char kKueueApiVersion[] = "kueue.x-k8s.io/v1beta2";
inline constexpr char kQueueNameLabel[] = "kueue.x-k8s.io/queue-name";
inline constexpr char kPriorityClassLabel[] = "kueue.x-k8s.io/priority-class";
inline constexpr char kJobUidLabel[] = "kueue.x-k8s.io/job-uid";
inline constexpr char kMaxExecTimeLabel[] = "kueue.x-k8s.io/max-exec-time-seconds";
inline constexpr char kProvReqAnnotationPrefix[] = "provreq.kueue.x-k8s.io/";
inline constexpr char kPodSetName[] = "ranks";
inline constexpr char kResourceInUseFinalizer[] = "kueue.x-k8s.io/resource-in-use";
// The Workload's PodsReady condition while its pods have not all started, as Kueue writes it.
inline constexpr char kPodsReadyWaitForStart[] = "WaitForStart";
inline constexpr char kPodsReadyNotReady[] = "Not all pods are ready or succeeded";

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
  // The assignment has a topologyAssignment (or a delayed topology request): Kueue's
  // topology-aware scheduling placed it, which the rank pods cannot follow.
  bool topology_assigned = false;
  std::string pending_message;  // QuotaReserved False's message (why it waits)
  // The podSetUpdates for pod set "ranks" of status.admissionChecks (Kueue admits a Workload once
  // every check is Ready), in the checks' order.
  Json pod_set_updates = Json::array();
};

WorkloadState WorkloadStateFromJson(const Json& wl);

// The Workload's priority as Kueue's jobframework takes it for its own jobs (ExtractPriority):
// the WorkloadPriorityClass the job's label kueue.x-k8s.io/priority-class names; else the
// PriorityClass of the rank pods (their priorityClassName); else the cluster's globalDefault
// PriorityClass (the lowest value when there are several); else none, value 0.
struct WorkloadPriority {
  enum class Kind { kNone, kWorkloadPriorityClass, kPriorityClass };
  Kind kind = Kind::kNone;
  std::string name;
  int32_t value = 0;
};

// The priority a Workload has (spec.priorityClassRef and spec.priority).
WorkloadPriority WorkloadPriorityOf(const Json& wl);

// The Workload to create for `job`, with `pod` (a rank pod as Desired renders it) as the pod set's
// template, `priority`, and the job's labels of `label_keys_to_copy`.
Json BuildWorkload(const Job& job, const Json& pod, const WorkloadPriority& priority,
                   const std::vector<std::string>& label_keys_to_copy);

// The Workload with its status changed as Kueue's jobframework does once an evicted job has no
// pods left: condition Requeued (True for Preempted and NodeFailures), QuotaReserved False
// (reason Pending), Admitted False (NoReservation), status.admission removed; and, in the same
// write, a PodsReady condition it has set to False/WaitForStart (what the jobframework writes
// for a Workload that is not admitted), so that an admission that follows at once is not timed
// from the old one. `now`: Unix seconds.
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
