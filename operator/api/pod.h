// ObservedPod: what the status decisions read from a rank pod (core/v1 Pod, as the informer
// caches it), typed. PodFromJson is the only place where it meets the pod's JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace petname::api {

// A pod condition (PodScheduled, Ready, DisruptionTarget, ...).
struct PodCondition {
  std::string type;
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
  std::optional<int64_t> last_transition_time;  // Unix seconds
};

// The terminated state of a container: its current one, else its last one.
struct Termination {
  int exit_code = -1;
  std::string reason;
  std::string message;
};

// A container of the pod waiting to start (its state.waiting): an init container or a container.
struct WaitingContainer {
  std::string name;
  std::string image;  // the image its status names (the pod's spec is not cached)
  bool init = false;
  std::string reason;  // ContainerCreating, PodInitializing, ErrImagePull, ImagePullBackOff, ...
  std::string message;
};

struct ObservedPod {
  std::string name;
  int rank = -1;               // label petname.dev/rank; -1 when absent or not a number
  int restart_generation = 0;  // label petname.dev/restart-generation; absent reads as 0
  bool deleting = false;       // metadata.deletionTimestamp is set
  // metadata.deletionTimestamp, Unix seconds: the end of the deleted pod's grace period, by
  // which its node should have stopped it; nullopt when not deleted or unreadable.
  std::optional<int64_t> deletion_time;
  std::string phase;                     // status.phase: Pending, Running, Succeeded, Failed or ""
  std::string reason;                    // status.reason (Evicted, NodeLost, ...)
  std::string message;                   // status.message
  std::string pod_ip;                    // status.podIP
  std::optional<int64_t> creation_time;  // metadata.creationTimestamp, Unix seconds
  std::vector<PodCondition> conditions;
  // The trainer container's termination (the first container's when none is named "trainer");
  // nullopt while it has not terminated.
  std::optional<Termination> trainer_terminated;
  // The first init container that terminated with a non-zero exit code (its current state, else
  // its last one), and its name; nullopt when none did.
  std::optional<Termination> init_failed;
  std::string init_failed_name;
  // Containers waiting to start: init containers first, then containers, in status order.
  std::vector<WaitingContainer> waiting;

  // The condition of `type`, or nullptr.
  const PodCondition* Condition(const std::string& type) const;
  // True when condition `type` is present with status "True".
  bool ConditionTrue(const std::string& type) const;
};

ObservedPod PodFromJson(const nlohmann::json& pod);

// A non-negative decimal label value of at most 9 digits, else `fallback`.
int LabelNumber(const std::string& value, int fallback);

}  // namespace petname::api
