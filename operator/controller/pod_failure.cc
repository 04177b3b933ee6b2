#include "operator/controller/pod_failure.h"

#include "operator/api/job.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

bool IsDisruptionReason(const std::string& reason) {
  return reason == "Evicted" || reason == "NodeLost" || reason == "Preempting" ||
         reason == "Shutdown" || reason == "Terminated";
}

bool HasTrueCondition(const Json& pod, const std::string& type) {
  Json::json_pointer ptr("/status/conditions");
  if (!pod.contains(ptr) || !pod.at(ptr).is_array()) return false;
  for (const Json& c : pod.at(ptr)) {
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  }
  return false;
}

// The terminated state of the trainer container (or the first one), or null.
Json Terminated(const Json& pod) {
  Json::json_pointer ptr("/status/containerStatuses");
  if (!pod.contains(ptr) || !pod.at(ptr).is_array() || pod.at(ptr).empty()) return nullptr;
  const Json* chosen = &pod.at(ptr).front();
  for (const Json& c : pod.at(ptr)) {
    if (c.value("name", "") == "trainer") chosen = &c;
  }
  Json::json_pointer term("/state/terminated");
  if (chosen->contains(term) && chosen->at(term).is_object()) return chosen->at(term);
  Json::json_pointer last("/lastState/terminated");
  if (chosen->contains(last) && chosen->at(last).is_object()) return chosen->at(last);
  return nullptr;
}

}  // namespace

bool PodFailed(const Json& pod, RankFailure* out) {
  const std::string phase = kube::StringAt(pod, "/status/phase");
  const std::string pod_reason = kube::StringAt(pod, "/status/reason");
  if (phase != "Failed" && pod_reason != "NodeLost") return false;
  RankFailure f;
  f.pod = kube::Name(pod);
  const std::string rank = kube::Label(pod, api::kRankLabel);
  if (!rank.empty() && rank.find_first_not_of("0123456789") == std::string::npos &&
      rank.size() < 9) {
    f.rank = std::stoi(rank);
  }
  f.disruption = IsDisruptionReason(pod_reason) || HasTrueCondition(pod, "DisruptionTarget");
  f.reason = pod_reason;
  f.message = kube::StringAt(pod, "/status/message");
  Json term = Terminated(pod);
  if (term.is_object()) {
    f.exit_code = static_cast<int>(kube::IntAt(term, "/exitCode", -1));
    if (f.reason.empty()) f.reason = term.value("reason", "");
    if (f.message.empty()) f.message = term.value("message", "");
  }
  if (f.reason.empty()) f.reason = "Failed";
  *out = std::move(f);
  return true;
}

bool Retryable(const std::string& restart_policy, const RankFailure& failure) {
  if (restart_policy == "Never") return false;
  if (restart_policy == "OnFailure") return true;
  if (failure.disruption || failure.exit_code < 0) return true;
  return failure.exit_code >= 128;
}

std::string Describe(const RankFailure& f, int processes_per_pod) {
  const int p = processes_per_pod;
  std::string out;
  if (p <= 1) {
    out = "rank " + (f.rank >= 0 ? std::to_string(f.rank) : std::string("?")) + " (pod " + f.pod +
          ") failed";
  } else if (f.rank >= 0) {
    out = "pod " + f.pod + " (ranks " + std::to_string(f.rank * p) + ".." +
          std::to_string(f.rank * p + p - 1) + ") failed";
  } else {
    out = "pod " + f.pod + " failed";
  }
  if (f.exit_code >= 0) {
    out += ": exit code " + std::to_string(f.exit_code) + " (" + f.reason + ")";
  } else {
    out += ": " + f.reason;
  }
  if (!f.message.empty()) out += ": " + f.message;
  return out;
}

}  // namespace petname::controller
