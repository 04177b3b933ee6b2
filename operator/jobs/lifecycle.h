// ComputeStatus: the lifecycle of a PetNameTrainingJob, decided by a pure function of the job
// (spec and previous status), the pods it controls, whether its PodGroup exists, and `now`
// (Unix seconds). It returns the new status, what to do with the rank pods (PodAction), when to
// look again (requeue_after) and whether the job itself is due for deletion (TTL). Every
// decision is re-derived from observed state on each pass (level-triggered); the time-based
// ones from timestamps kept in status, so they survive an operator restart.
//
// Phases: Pending (ranks created, not all running), Running (all running or done), Restarting,
// Succeeded, Failed (both final), Suspended. Only the pods of the current attempt are counted
// (attempt_pods.h: status.active, ready, succeeded, failed); status.ranks is the world size
// (replicas x api::ProcessesPerPod), so a pod of P processes is one pod and P ranks.
//
//  - A spec.env entry with a name the operator sets (api::CheckSpecEnv: a job stored before the
//    CRD's rule) or a pod template that sets what the operator owns (CheckPodTemplate,
//    rank_pod.h): Failed, reason InvalidSpec, the conflicts as message; no rank pod is created.
//  - A failed rank: a gang restart (restarts+1, phase and condition Restarting, all rank pods
//    deleted (kStop), recreated after the restart delay), or Failed when the restart policy does
//    not retry it (RankFailed, ...) or backoffLimit is spent (BackoffLimitExceeded):
//    gang_restart.h.
//  - activeDeadlineSeconds after startTime: Failed, reason DeadlineExceeded, running pods
//    deleted whatever cleanPodPolicy says.
//  - suspend: phase and condition Suspended, pods deleted; back to false: condition Suspended
//    False with reason Resumed, startTime reset (the deadline counts from the resume), pods
//    recreated.
//  - Finished: cleanPodPolicy and ttlSecondsAfterFinished (delete_job): finished_job.h.
//  - PodsReady and PodsScheduled, and a start error that outlasts startErrorTimeoutSeconds
//    failing the job with its waiting reason: rank_readiness.h.
//  - CheckpointsPersistent (job_outputs.h) on every pass of a job that is not finished: False,
//    reason EmptyDir, without spec.checkpoint.claimName.
//  - Succeeded: status.modelPath and, with a claim, status.model (job_outputs.h).
//  - status.reason and status.message summarize why (status_summary.h); events: job_events.h.
//  - In a Kueue queue: kueue/queue_admission.h (no pods before admission; eviction suspends it).
//  - Gang scheduling with the PodGroup API absent: condition GangScheduling False, reason
//    GangSchedulingUnavailable, no pods (kStop), checked again every 30 s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operator/api/job.h"
#include "operator/api/job_status.h"
#include "operator/api/pod.h"
#include "operator/jobs/desired.h"
#include "operator/kueue/queue_admission.h"

namespace petname::controller {

enum class PodGroupState {
  kNotWanted,    // gang scheduling is off
  kPresent,      // the job's PodGroup exists
  kMissing,      // the API is served, the object does not exist yet
  kUnavailable,  // the PodGroup API is not served (CRD absent)
};

// A Kubernetes Event to record on the job (type Normal or Warning).
struct JobEvent {
  std::string type;
  std::string reason;
  std::string message;
};

struct Plan {
  api::JobStatus status;
  PodAction pods = PodAction::kRun;
  int64_t requeue_after = 0;  // seconds until a time-based decision is due; 0: none pending
  bool delete_job = false;
  // What to do with the job's Kueue Workload (kueue/queue_admission.h).
  WorkloadAction workload = WorkloadAction::kNone;
  // Transitions from the previous status to this one (job_events.h).
  std::vector<JobEvent> events;
};

// `queue`: the job's Kueue admission (kueue/queue_admission.h), decided before everything below but
// spec.runPolicy.suspend.
Plan ComputeStatus(const api::Job& job, const std::vector<api::ObservedPod>& owned_pods,
                   PodGroupState group, int64_t now, const QueueState& queue = QueueState{});

}  // namespace petname::controller
