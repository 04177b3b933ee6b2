// Condition helpers for PetNameTrainingJob status.conditions (metav1.Condition shape: type,
// status "True"/"False", reason, message, lastTransitionTime). Kubeflow-like types.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace petname::api {

inline constexpr char kCreated[] = "Created";
inline constexpr char kRunning[] = "Running";
inline constexpr char kSucceeded[] = "Succeeded";
inline constexpr char kFailed[] = "Failed";
inline constexpr char kSuspended[] = "Suspended";
inline constexpr char kRestarting[] = "Restarting";
// False with reason Unschedulable while a rank has not been scheduled for too long.
inline constexpr char kPodsScheduled[] = "PodsScheduled";
// False with reason GangSchedulingUnavailable when the gang scheduler's PodGroup API is absent.
inline constexpr char kGangScheduling[] = "GangScheduling";

// Sets condition `type` in the `conditions` array (created when null). lastTransitionTime
// becomes `now` only when the condition is new or its status changes.
void SetCondition(nlohmann::json* conditions, const std::string& type, bool status,
                  const std::string& reason, const std::string& message, const std::string& now);

// The condition of `type`, or null when absent.
nlohmann::json FindCondition(const nlohmann::json& conditions, const std::string& type);

}  // namespace petname::api
