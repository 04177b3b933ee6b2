// Kueue admission of a job in a queue (label kueue.x-k8s.io/queue-name, with the operator's
// --kueue): a pure decision on the job's status from its Workload (api/workload.h), taken by
// ComputeStatus (job_status.h) before the rest of the lifecycle, the way Kueue's jobframework
// drives its built-in job kinds:
//  - Workload API not served: QuotaReserved False, reason KueueUnavailable; no pods; looked at
//    again every 30 s.
//  - no Workload yet: kCreate; QuotaReserved False, reason Pending; no pods.
//  - every pass: conditions QuotaReserved and Admitted mirror the Workload's (the ClusterQueue
//    and the admitted replicas in the message).
//  - not admitted, or evicted (preempted, deactivated, pods-ready timeout, ...): phase Suspended,
//    condition Suspended True with reason WaitingForAdmission or the eviction's reason and
//    message; no rank pods (kStop: deleting them sends SIGTERM, every rank checkpoints at one step
//    and exits 143); status.restarts is not touched, so backoffLimit does not count it. Once the
//    evicted job has no pod left: kClearReservation (Kueue may then admit it again).
//  - admitted again: Suspended False, reason Admitted; startTime reset; the ranks are recreated
//    and resume from the latest checkpoint.
//  - finished (Succeeded or Failed) with an unfinished Workload: kFinish (Kueue frees the quota).
//  - suspended by spec.runPolicy.suspend: no rank pod whatever the Workload says, QuotaReserved
//    and Admitted still mirror it, and an eviction still releases the reservation once no pod is
//    left (kClearReservation), so whatever preempted the job gets its quota.
// The Workload's PodsReady condition is written as Kueue writes it for its own kinds
// (WorkloadPodsReady).
#pragma once

#include <cstdint>
#include <optional>

#include "operator/api/job_status.h"
#include "operator/api/workload.h"

namespace petname::controller {

struct QueueState {
  bool wanted = false;          // --kueue and the job has a queue-name label
  bool unavailable = false;     // kueue.x-k8s.io/v1beta2 workloads are not served
  api::WorkloadState workload;  // workload.exists == false: not created yet
};

enum class WorkloadAction { kNone, kCreate, kClearReservation, kFinish };

struct QueueDecision {
  bool gated = false;    // no rank pods may run
  bool recheck = false;  // look again later (Workload API unavailable)
  WorkloadAction workload = WorkloadAction::kNone;
};

inline constexpr int64_t kQueueRecheckSeconds = 30;

// Decides for a job that is not finished; `pods_left`: any pod of the job still exists (being
// deleted included). Sets phase and conditions in *status.
QueueDecision DecideQueue(const QueueState& queue, bool pods_left, int64_t now,
                          api::JobStatus* status);

// For a job suspended by spec.runPolicy.suspend; sets conditions QuotaReserved and Admitted in
// *status (the phase and Suspended are the suspension's).
WorkloadAction DecideSuspendedQueue(const QueueState& queue, bool pods_left, int64_t now,
                                    api::JobStatus* status);

// For a finished job: kFinish when its Workload exists and is not finished, else kNone.
WorkloadAction FinishedJobWorkload(const QueueState& queue);

// The Workload's PodsReady condition as Kueue v0.17's jobframework writes it for its own kinds
// (generatePodsReadyCondition), from `ready` (the job's PodsReady) and the Workload's current one:
//  - not admitted: False, WaitForStart;
//  - ready: True, Started; Recovered when the current reason is WaitForRecovery or Recovered;
//  - not ready while the current one is True or WaitForRecovery (a rank failed after the ranks
//    had been ready since the admission): False, WaitForRecovery;
//  - else False, WaitForStart.
// Kueue's waitForPodsReady times WaitForStart from the admission (timeout) and WaitForRecovery
// from its own transition (recoveryTimeout), so a rank restart of a job that has run longer than
// the timeout does not evict it. std::nullopt: nothing to write (no Workload, evicted, finished,
// or it already has that status and reason).
std::optional<api::WorkloadCondition> WorkloadPodsReady(const api::WorkloadState& wl, bool ready);

}  // namespace petname::controller
