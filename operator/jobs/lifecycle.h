// ComputeStatus: the lifecycle of a PetNameTrainingJob, decided by a pure function of the job
// (spec and previous status), the pods it controls, whether its PodGroup exists, and `now`
// (Unix seconds). It returns the new status, what to do with the rank pods (PodAction), when to
// look again (requeue_after) and whether the job itself is due for deletion (TTL). Every
// decision is re-derived from observed state on each pass (level-triggered); the time-based
// ones from timestamps kept in status, so they survive an operator restart.
//
// Phases: Pending (ranks created, not all running), Running (all running or done), Restarting,
// Succeeded, Failed (both final), Suspended. Only pods of the current restart generation
// (label petname.dev/restart-generation == status.restarts) and not being deleted are counted.
// status.active, ready, succeeded and failed count pods; status.ranks is the world size
// (replicas x api::ProcessesPerPod), so a pod of P processes is one pod and P ranks.
//
//  - A spec.env entry with a name the operator sets (api::CheckSpecEnv: a job stored before the
//    CRD's rule) or a pod template that sets what the operator owns (CheckPodTemplate,
//    desired.h): Failed, reason InvalidSpec, the conflicts as message; no rank pod is created.
//  - A failed rank (pod_failure.h) that the restart policy does not retry: Failed, reason
//    RankFailed. A retryable one with status.restarts >= backoffLimit: Failed, reason
//    BackoffLimitExceeded. Otherwise a gang restart: restarts+1, lastRestartTime=now, phase and
//    condition Restarting (reason from the failure, message naming the rank, or with several
//    processes per pod the pod and its ranks, and the exit code), all
//    rank pods deleted (kStop). Once none is left and restartBackoffSeconds * 2^(restarts-1)
//    (capped at 300 s) has passed since lastRestartTime, the ranks are recreated (they always
//    run with --resume) and the phase goes back to Pending.
//  - activeDeadlineSeconds after startTime: Failed, reason DeadlineExceeded, running pods
//    deleted whatever cleanPodPolicy says.
//  - suspend: phase and condition Suspended, pods deleted; back to false: condition Suspended
//    False with reason Resumed, startTime reset (the deadline counts from the resume), pods
//    recreated.
//  - Finished: cleanPodPolicy Running -> kCleanupRunning, All -> kCleanupAll, None -> kKeep;
//    delete_job once completionTime + ttlSecondsAfterFinished has passed.
//  - A rank Pending with PodScheduled=False/Unschedulable for unschedulableAfterSeconds:
//    condition PodsScheduled False, reason Unschedulable, the scheduler's message.
//  - PodsReady (api/conditions.h), on every pass while the ranks start or run: True once every rank
//    pod is Ready or Succeeded; False with the reason and "<pod>: <message>" of what blocks a rank
//    pod (pod_start.h: a start error such as ImagePullBackOff, else Unschedulable, at once), else
//    False, reason PodsStarting. A start error that has lasted runPolicy.startErrorTimeoutSeconds
//    (counted from when the container was due to start, pod_start.h; requeued for then) fails the
//    job with the waiting reason as its reason (ImagePullBackOff, CreateContainerConfigError, ...)
//    and a message naming the pod, container and image; cleanPodPolicy then applies.
//    Unschedulable never fails the job.
//  - CheckpointsPersistent (job_outputs.h) on every pass of a job that is not finished: False,
//    reason EmptyDir, without spec.checkpoint.claimName.
//  - Succeeded: status.modelPath and, with a claim, status.model (job_outputs.h).
//  - status.reason and status.message summarize why (status_summary.h); events: job_events.h.
//  - A job in a Kueue queue: kueue/queue_admission.h (no pods before admission; eviction suspends
//  it).
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

// Restart delay before recreating the ranks after the `restarts`-th restart.
int64_t RestartDelaySeconds(const api::JobSpec& spec, int restarts);

// `queue`: the job's Kueue admission (kueue/queue_admission.h), decided before everything below but
// spec.runPolicy.suspend.
Plan ComputeStatus(const api::Job& job, const std::vector<api::ObservedPod>& owned_pods,
                   PodGroupState group, int64_t now, const QueueState& queue = QueueState{});

}  // namespace petname::controller
