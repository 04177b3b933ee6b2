// Condition types of PetNameTrainingJob status.conditions (Kubeflow-like) and helpers on the
// typed list (job_status.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operator/api/job_status.h"

namespace petname::api {

inline constexpr char kCreated[] = "Created";
inline constexpr char kRunning[] = "Running";
inline constexpr char kSucceeded[] = "Succeeded";
inline constexpr char kFailed[] = "Failed";
inline constexpr char kSuspended[] = "Suspended";
inline constexpr char kRestarting[] = "Restarting";
// False with reason Unschedulable while a rank has not been scheduled for too long.
inline constexpr char kPodsScheduled[] = "PodsScheduled";
// Whether every rank pod of the current attempt is Ready (or has Succeeded): False with reason
// PodsStarting while they start, or with the reason that blocks one (a start error such as
// ImagePullBackOff, or Unschedulable) and "<pod>: <message>" (jobs/pod_start.h).
inline constexpr char kPodsReady[] = "PodsReady";
// Whether checkpoints and the exported model outlive the pods: False with reason EmptyDir when
// spec.checkpoint.claimName is unset, True with reason PersistentVolumeClaim otherwise.
inline constexpr char kCheckpointsPersistent[] = "CheckpointsPersistent";
// Jobs in a Kueue queue only (kueue/queue_admission.h): mirror the Workload's conditions.
inline constexpr char kQuotaReserved[] = "QuotaReserved";
inline constexpr char kAdmitted[] = "Admitted";
// False with reason GangSchedulingUnavailable when the gang scheduler's PodGroup API is absent.
inline constexpr char kGangScheduling[] = "GangScheduling";

// Sets condition `type` in `conditions` (appended when absent). Its lastTransitionTime becomes
// `now` (Unix seconds) only when the condition is new or its status changes.
void SetCondition(std::vector<Condition>* conditions, const std::string& type, bool status,
                  const std::string& reason, const std::string& message, int64_t now);

// The condition of `type`, or nullptr when absent.
const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);

// True when condition `type` is present with status `status`.
bool ConditionIs(const std::vector<Condition>& conditions, const std::string& type, bool status);

}  // namespace petname::api
