#include "operator/kueue/queue_admission.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "operator/api/conditions.h"

namespace petname::controller {
namespace {

void Set(api::JobStatus* status, const char* type, bool value, const std::string& reason,
         const std::string& message, int64_t now) {
  api::SetCondition(&status->conditions, type, value, reason, message, now);
}

void Gate(api::JobStatus* status, const std::string& reason, const std::string& message,
          int64_t now) {
  status->phase = api::JobPhase::kSuspended;
  Set(status, api::kSuspended, true, reason, message, now);
  for (const char* type : {api::kRunning, api::kPodsReady}) {
    if (api::FindCondition(status->conditions, type) != nullptr) {
      Set(status, type, false, reason, message, now);
    }
  }
}

// The job waits without a reservation: QuotaReserved False and Suspended True say why.
QueueDecision WaitUnreserved(const std::string& reason, const std::string& message, bool recheck,
                             int64_t now, api::JobStatus* status) {
  Set(status, api::kQuotaReserved, false, reason, message, now);
  Gate(status, reason, message, now);
  QueueDecision d;
  d.gated = true;
  d.recheck = recheck;
  return d;
}

std::string Where(const api::WorkloadState& wl) {
  return wl.cluster_queue.empty() ? "" : " by ClusterQueue " + wl.cluster_queue;
}

std::string Replicas(const api::WorkloadState& wl) {
  return std::to_string(wl.admitted_count) + " replicas";
}

// Conditions QuotaReserved and Admitted: copies of the Workload's.
void Mirror(const api::WorkloadState& wl, int64_t now, api::JobStatus* status) {
  Set(status, api::kQuotaReserved, wl.quota_reserved,
      wl.quota_reserved ? "QuotaReserved" : "Pending",
      wl.quota_reserved ? "quota reserved" + Where(wl) + " for " + Replicas(wl)
                        : (wl.pending_message.empty() ? "waiting for quota" : wl.pending_message),
      now);
  Set(status, api::kAdmitted, wl.admitted, wl.admitted ? "Admitted" : "NoReservation",
      wl.admitted ? "admitted" + Where(wl) + " with " + Replicas(wl) : "not admitted", now);
}

// An evicted Workload's reservation is released once the job has no pod left, as Kueue's
// jobframework does for a stopped job.
WorkloadAction ReleaseEvicted(const api::WorkloadState& wl, bool pods_left) {
  return wl.evicted && !pods_left && wl.quota_reserved && !wl.deleting
             ? WorkloadAction::kClearReservation
             : WorkloadAction::kNone;
}

std::string MissingClass(const QueueState& queue) {
  if (queue.priority.kind == api::WorkloadPriority::Kind::kPriorityClass) {
    return "PriorityClass " + queue.priority.name +
           " (the rank pods' priorityClassName) was not found";
  }
  return "WorkloadPriorityClass " + queue.priority.name + " (label " + api::kPriorityClassLabel +
         ") was not found";
}

// Why the job's Workload cannot be created now ("" when it can), as reason and message.
std::pair<std::string, std::string> CannotCreate(const QueueState& queue) {
  if (!queue.name_taken_by.empty()) {
    return {"WorkloadConflict", "the job's Workload " + queue.workload.name +
                                    " cannot be created: " + queue.name_taken_by +
                                    " holds that name"};
  }
  if (queue.priority_class_missing) {
    return {"PriorityClassNotFound",
            MissingClass(queue) + "; the job's Workload is created once it exists"};
  }
  return {};
}

// What brings an existing Workload in line with the job (kNone: nothing, or only a
// WorkloadPriorityClass that does not exist differs).
WorkloadAction Resync(const QueueState& queue) {
  const api::WorkloadState& wl = queue.workload;
  api::WorkloadDrift d = queue.drift;
  if (queue.priority_class_missing) d.priority_class = d.priority_presence = false;
  if (!wl.exists || !d.any() || wl.deleting || wl.finished) return WorkloadAction::kNone;
  if (!wl.quota_reserved) return WorkloadAction::kUpdate;
  return d.immutable_while_reserved() ? WorkloadAction::kReplace : WorkloadAction::kUpdate;
}

// A job the queue cannot take now: the Workload API is not served, Kueue does not manage its
// namespace, or its queue-name label went before it had a Workload (std::nullopt: none of them).
std::optional<QueueDecision> CannotQueue(const QueueState& queue, int64_t now,
                                         api::JobStatus* status) {
  if (queue.unavailable) {
    const std::string msg =
        "the Kueue Workload API (kueue.x-k8s.io/v1beta2) is not served by this cluster (is "
        "Kueue installed?); no rank pod is created before the job is admitted";
    return WaitUnreserved("KueueUnavailable", msg, true, now, status);
  }
  if (queue.namespace_unmanaged) {
    const std::string msg =
        "Kueue does not manage jobs in this namespace (its managedJobsNamespaceSelector does not "
        "select it), so the job cannot be admitted: no rank pod runs without an admission; label "
        "the namespace as Kueue's configuration selects, or create the job without label " +
        std::string(api::kQueueNameLabel);
    return WaitUnreserved("NamespaceNotManaged", msg, true, now, status);
  }
  if (!queue.workload.exists && queue.label_removed) {
    const std::string msg = std::string("label ") + api::kQueueNameLabel +
                            " was removed before the job had a Workload: no rank pod runs "
                            "without an admission; put the label back, or delete the job and "
                            "create it without the label";
    return WaitUnreserved("QueueLabelRemoved", msg, false, now, status);
  }
  return std::nullopt;
}

// No Workload yet: kCreate, unless it cannot be created now (CannotCreate).
QueueDecision AwaitCreate(const QueueState& queue, int64_t now, api::JobStatus* status) {
  const auto [reason, message] = CannotCreate(queue);
  if (!reason.empty()) return WaitUnreserved(reason, message, true, now, status);
  QueueDecision d;
  d.gated = true;
  Set(status, api::kQuotaReserved, false, "Pending", "the job's Workload is being created", now);
  Gate(status, "WaitingForAdmission", "waiting for Kueue to admit the job's Workload", now);
  d.workload = WorkloadAction::kCreate;
  return d;
}

// The Workload is Finished while the job is not: the job fails.
QueueDecision WorkloadFinished(const api::WorkloadState& wl) {
  QueueDecision d;
  d.gated = true;
  d.fail_reason = wl.finished_reason.empty() ? "WorkloadFinished" : wl.finished_reason;
  d.fail_message = "Workload " + wl.name + " was finished before the job (" + d.fail_reason +
                   (wl.finished_message.empty() ? "" : ": " + wl.finished_message) +
                   "); its quota is freed and Kueue does not admit it again";
  return d;
}

// A gate of the rank pods with `reason` and `message`, and `action` for the Workload.
QueueDecision Gated(const std::string& reason, const std::string& message, WorkloadAction action,
                    int64_t now, api::JobStatus* status) {
  Gate(status, reason, message, now);
  QueueDecision d;
  d.gated = true;
  d.workload = action;
  return d;
}

// The Workload holds the job's admission: evicted, waiting for it, or admitted. `d` carries the
// Workload's action so far (Resync's).
void FollowAdmission(const api::WorkloadState& wl, bool pods_left, int64_t now,
                     api::JobStatus* status, QueueDecision* d) {
  if (wl.evicted) {
    const std::string msg = "evicted by Kueue (" + wl.evicted_reason + "): " + wl.evicted_message +
                            "; the ranks checkpoint and stop, and the job waits to be admitted "
                            "again (not counted against backoffLimit)";
    Gate(status, wl.evicted_reason.empty() ? "Evicted" : wl.evicted_reason, msg, now);
    d->gated = true;
    // The release first: an update waits for it (the Workload then takes the whole change), and
    // one Kueue refused can never hold the quota of an evicted job.
    if (const WorkloadAction release = ReleaseEvicted(wl, pods_left);
        release != WorkloadAction::kNone) {
      d->workload = release;
    }
    return;
  }
  if (!wl.admitted) {
    Gate(status, "WaitingForAdmission",
         "waiting for Kueue to admit Workload " + wl.name +
             (wl.pending_message.empty() ? "" : ": " + wl.pending_message),
         now);
    d->gated = true;
    return;
  }
  if (api::ConditionIs(status->conditions, api::kSuspended, true)) {
    Set(status, api::kSuspended, false, "Admitted",
        "admitted" + Where(wl) + " with " + Replicas(wl) +
            ": the ranks start, or resume from the latest checkpoint",
        now);
    status->start_time = now;
    status->phase = api::JobPhase::kPending;
  }
}

}  // namespace

QueueDecision DecideQueue(const QueueState& queue, bool pods_left, int64_t now,
                          api::JobStatus* status) {
  if (std::optional<QueueDecision> d = CannotQueue(queue, now, status)) return *d;
  const api::WorkloadState& wl = queue.workload;
  if (!wl.exists) return AwaitCreate(queue, now, status);
  Mirror(wl, now, status);
  if (wl.finished) return WorkloadFinished(wl);
  if (wl.deleting) {
    return Gated("WorkloadDeleted",
                 "Workload " + wl.name +
                     " is being deleted: the ranks checkpoint and stop, Kueue keeps the quota "
                     "until they are gone, then the job gets a new Workload and waits to be "
                     "admitted again",
                 WorkloadAction::kNone, now, status);
  }
  const WorkloadAction resync = Resync(queue);
  if (resync == WorkloadAction::kReplace) {
    return Gated("NoMatchingWorkload",
                 "the job no longer matches Workload " + wl.name +
                     ", which holds quota and cannot take the change: it is replaced, the ranks "
                     "checkpoint and stop, and the job waits to be admitted again as it is now",
                 resync, now, status);
  }
  const bool missing_class = queue.priority_class_missing && queue.drift.priority_class;
  if (missing_class && !wl.quota_reserved) {
    const std::string msg = MissingClass(queue) + "; Workload " + wl.name +
                            " is updated to match the job once it exists";
    return WaitUnreserved("PriorityClassNotFound", msg, true, now, status);
  }
  if (resync == WorkloadAction::kUpdate && !wl.quota_reserved) {
    return Gated(
        "WaitingForAdmission",
        "Workload " + wl.name + " is updated to match the job; waiting for Kueue to admit it",
        resync, now, status);
  }
  QueueDecision d;
  d.recheck = missing_class;
  d.workload = resync;
  FollowAdmission(wl, pods_left, now, status, &d);
  return d;
}

WorkloadAction DecideSuspendedQueue(const QueueState& queue, bool pods_left, int64_t now,
                                    api::JobStatus* status) {
  if (!queue.workload.exists) return WorkloadAction::kNone;
  Mirror(queue.workload, now, status);
  const WorkloadAction release = ReleaseEvicted(queue.workload, pods_left);
  return release != WorkloadAction::kNone ? release : Resync(queue);
}

WorkloadAction FinishedJobWorkload(const QueueState& queue) {
  const api::WorkloadState& wl = queue.workload;
  if (!queue.wanted || !wl.exists || wl.finished || wl.deleting) return WorkloadAction::kNone;
  return WorkloadAction::kFinish;
}

bool QueueProblem(const std::string& reason) {
  return reason == "PriorityClassNotFound" || reason == "WorkloadConflict" ||
         reason == "QueueLabelRemoved" || reason == "NamespaceNotManaged";
}

void ApplyAdmission(const QueueState& queue, api::JobSpec* spec) {
  const api::WorkloadState& wl = queue.workload;
  if (!queue.wanted || !wl.admitted || wl.evicted || wl.admitted_count <= 0) return;
  spec->replicas = std::min(spec->replicas, wl.admitted_count);
  spec->gang_min_available = std::min(spec->gang_min_available, spec->replicas);
}

}  // namespace petname::controller
