#include "operator/jobs/pod_start.h"

#include <algorithm>
#include <optional>

namespace petname::controller {
namespace {

constexpr const char* kStartErrors[] = {
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "ImageInspectError",
    "RegistryUnavailable",
    "SignatureValidationFailed",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "PreStartHookError",
};

// The condition's lastTransitionTime when it is True, else nullopt.
std::optional<int64_t> TrueSince(const api::ObservedPod& pod, const char* type) {
  const api::PodCondition* c = pod.Condition(type);
  if (c == nullptr || c->status != "True") return std::nullopt;
  return c->last_transition_time;
}

int64_t DueSince(const api::ObservedPod& pod, bool init, int64_t now) {
  std::optional<int64_t> since = pod.creation_time;
  auto later = [&since](std::optional<int64_t> t) {
    if (t && (!since || *t > *since)) since = t;
  };
  later(TrueSince(pod, "PodScheduled"));
  if (!init) later(TrueSince(pod, "Initialized"));
  return since.value_or(now);
}

std::string What(const StartBlock& b) {
  return std::string(b.init ? "init container " : "container ") + b.container;
}

}  // namespace

bool IsStartError(const std::string& waiting_reason) {
  return std::find(std::begin(kStartErrors), std::end(kStartErrors), waiting_reason) !=
         std::end(kStartErrors);
}

bool PodStartBlocked(const api::ObservedPod& pod, int64_t now, StartBlock* out) {
  if (!pod.phase.empty() && pod.phase != "Pending") return false;
  StartBlock b;
  b.rank = pod.rank;
  b.pod = pod.name;
  for (const api::WaitingContainer& w : pod.waiting) {
    if (!IsStartError(w.reason)) continue;
    b.reason = w.reason;
    b.message = w.message;
    b.container = w.name;
    b.image = w.image;
    b.init = w.init;
    b.start_error = true;
    b.since = DueSince(pod, w.init, now);
    *out = std::move(b);
    return true;
  }
  const api::PodCondition* scheduled = pod.Condition("PodScheduled");
  if (scheduled == nullptr || scheduled->status != "False" ||
      scheduled->reason != "Unschedulable") {
    return false;
  }
  b.reason = "Unschedulable";
  b.message = scheduled->message;
  b.since = scheduled->last_transition_time.value_or(now);
  *out = std::move(b);
  return true;
}

std::string DescribeBlock(const StartBlock& b) {
  std::string out = b.pod;
  if (!b.container.empty() && (b.init || b.container != "trainer")) out += " (" + What(b) + ")";
  if (!b.message.empty()) return out + ": " + b.message;
  if (!b.start_error) return out + ": cannot be scheduled";
  return out + ": " + b.reason + (b.image.empty() ? "" : " (image " + b.image + ")");
}

std::string DescribeStartFailure(const StartBlock& b, int64_t timeout_seconds) {
  std::string out = b.pod + ": " + What(b) + " did not start within " +
                    std::to_string(timeout_seconds) +
                    " s (runPolicy.startErrorTimeoutSeconds): " + b.reason;
  if (!b.image.empty()) out += " for image " + b.image;
  if (!b.message.empty()) out += ": " + b.message;
  return out;
}

}  // namespace petname::controller
