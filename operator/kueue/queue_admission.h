// Kueue admission of a job in a queue (label kueue.x-k8s.io/queue-name, with the operator's
// --kueue): a pure decision on the job's status from its Workload (kueue/workload.h), taken by
// ComputeStatus (jobs/lifecycle.h) before the rest of the lifecycle, the way Kueue's jobframework
// drives its built-in job kinds:
//  - Workload API not served: QuotaReserved False, reason KueueUnavailable; no pods; looked at
//    again every 30 s.
//  - labelled in a namespace Kueue does not manage (queue_membership.h), with no Workload:
//    Suspended and QuotaReserved False, reason NamespaceNotManaged (a Warning event,
//    QueueProblem), no Workload and no pod; looked at again every 30 s.
//  - no Workload yet: kCreate; QuotaReserved False, reason Pending; no pods. Not created, as
//    Kueue's jobframework does not create it either, while the job's WorkloadPriorityClass (or,
//    without one, the rank pods' PriorityClass) does not exist (reason PriorityClassNotFound) or
//    another object holds the Workload's name (reason
//    WorkloadConflict): Suspended and QuotaReserved False with that reason (a Warning event,
//    QueueProblem), looked at again every 30 s.
//  - the Workload is being deleted (by hand; Kueue's finalizer kueue.x-k8s.io/resource-in-use
//    keeps it, and its quota, until the operator removes it: workload_finalizer.h): phase
//    Suspended, reason WorkloadDeleted, no rank pods (kStop), and no new Workload until the old
//    one is gone; then kCreate as for a new job.
//  - every pass: conditions QuotaReserved and Admitted mirror the Workload's (the ClusterQueue
//    and the admitted replicas in the message).
//  - the Workload is Finished while the job is not (Kueue's FailedToStart: the admission's node
//    labels or podSetUpdates clash with the job, queue_sync.h; or finished by hand): the job
//    fails (fail_reason: the Workload's reason), as its quota is gone and Kueue does not admit a
//    finished Workload again.
//  - the job no longer matches its Workload (kueue/workload_drift.h: replicas, minReplicas,
//    resources, the queue-name label, the priority-class label), as Kueue's jobframework handles
//    its own kinds: while the Workload holds no quota, kUpdate (it takes the job's pod set, queue
//    and priority; the job waits, WaitingForAdmission); with quota reserved, a different
//    WorkloadPriorityClass is also kUpdate (its priority alone: api::WithSpecOf; the job runs on),
//    anything else the Workload cannot take while reserved (pod set, maximum execution time,
//    queueName, a priority class added or removed) is kReplace:
//    reason NoMatchingWorkload, no rank pods (kStop), the Workload deleted; it then goes as one
//    deleted by hand (below: its finalizer keeps the quota until the ranks are gone) and the job
//    gets a new Workload that matches it. A priority-class label naming a class that does not
//    exist changes nothing: a Workload without quota waits with reason PriorityClassNotFound, a
//    reserved one keeps its priority; looked at again every 30 s.
//  - the queue-name label removed from a job the operator has seen in a queue (it has condition
//    QuotaReserved): the label cannot be refused (no webhook; CRD validation rules do not see
//    metadata.labels), so the job stays Kueue's. With a Workload, that Workload (its queue)
//    keeps governing it and QueueSync warns (QueueLabelRemoved); without one, the job waits
//    (Suspended, reason QueueLabelRemoved, no rank pod, no Workload created), as Kueue's own Job
//    stays suspended. Either way no rank pod runs without an admission.
//  - not admitted, or evicted (preempted, deactivated, pods-ready timeout, ...): phase Suspended,
//    condition Suspended True with reason WaitingForAdmission or the eviction's reason and
//    message; no rank pods (kStop: deleting them sends SIGTERM, every rank checkpoints at one step
//    and exits 143); status.restarts is not touched, so backoffLimit does not count it. Once no
//    pod of the evicted job holds its quota (pod_quota.h: gone, finished, or Terminating past its
//    grace period): kClearReservation (Kueue may then admit it again), before any kUpdate the job
//    also needs, so that an update never holds an evicted job's quota.
//  - admitted again: Suspended False, reason Admitted; startTime reset; the ranks are recreated
//    and resume from the latest checkpoint.
//  - finished (Succeeded or Failed) with an unfinished Workload: kFinish (Kueue frees the quota).
//  - suspended by spec.runPolicy.suspend: no rank pod whatever the Workload says, QuotaReserved
//    and Admitted still mirror it, and an eviction still releases the reservation once no pod
//    holds the quota (kClearReservation), so whatever preempted the job gets its quota.
// The Workload's PodsReady condition is written as Kueue writes it for its own kinds
// (workload_pods_ready.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operator/api/job_status.h"
#include "operator/api/pod.h"
#include "operator/kueue/workload.h"
#include "operator/kueue/workload_drift.h"

namespace petname::controller {

struct QueueState {
  bool wanted = false;         // --kueue and Kueue manages the job (queue_membership.h)
  bool label_removed = false;  // wanted though its queue-name label is gone (it was in a queue)
  bool unavailable = false;    // kueue.x-k8s.io/v1beta2 workloads are not served
  // Labelled, in a namespace Kueue's managedJobsNamespaceSelector does not select, no Workload.
  bool namespace_unmanaged = false;
  // Without a queue-name label at its first look, in a namespace with a LocalQueue "default":
  // the job is to be labelled kueue.x-k8s.io/queue-name: default before anything else.
  bool default_queue = false;
  api::WorkloadState workload;  // workload.exists == false: not created yet
  api::WorkloadDrift drift;     // how the Workload differs from the job (when it exists)
  // The priority the Workload is to have (api::WorkloadPriority), read while there is no Workload
  // (workload.name is then the name it is to have) or its WorkloadPriorityClass is not the
  // label's, else the Workload's own; priority_class_missing: the class it names does not exist.
  // What else holds the Workload's name ("" when nothing does).
  api::WorkloadPriority priority;
  bool priority_class_missing = false;
  std::string name_taken_by;
};

enum class WorkloadAction { kNone, kCreate, kUpdate, kReplace, kClearReservation, kFinish };

struct QueueDecision {
  bool gated = false;    // no rank pods may run
  bool recheck = false;  // look again later (Workload API unavailable)
  WorkloadAction workload = WorkloadAction::kNone;
  // Non-empty: the job fails, with this condition reason and message.
  std::string fail_reason;
  std::string fail_message;
};

inline constexpr int64_t kQueueRecheckSeconds = 30;

// Decides for a job that is not finished; `pods_left`: a pod of the job still holds its quota
// (pod_quota.h). Sets phase and conditions in *status.
QueueDecision DecideQueue(const QueueState& queue, bool pods_left, int64_t now,
                          api::JobStatus* status);

// For a job suspended by spec.runPolicy.suspend; sets conditions QuotaReserved and Admitted in
// *status (the phase and Suspended are the suspension's).
WorkloadAction DecideSuspendedQueue(const QueueState& queue, bool pods_left, int64_t now,
                                    api::JobStatus* status);

// For a finished job: kFinish when its Workload exists, is not finished and is not being
// deleted, else kNone.
WorkloadAction FinishedJobWorkload(const QueueState& queue);

// Whether a Suspended reason DecideQueue sets needs the user to act (its event is a Warning).
bool QueueProblem(const std::string& reason);

// With an admitted Workload that is not evicted: spec.replicas becomes the admitted count, and the
// PodGroup's gang.minAvailable at most that count (gang scheduling with partial admission).
void ApplyAdmission(const QueueState& queue, api::JobSpec* spec);

}  // namespace petname::controller
