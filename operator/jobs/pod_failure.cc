#include "operator/jobs/pod_failure.h"

#include <sstream>

#include "common/exit_codes.h"
#include "operator/jobs/data_fetch.h"

namespace petname::controller {
namespace {

bool IsDisruptionReason(const std::string& reason) {
  return reason == "Evicted" || reason == "NodeLost" || reason == "Preempting" ||
         reason == "Shutdown" || reason == "Terminated";
}

}  // namespace

std::string FailureLine(const std::string& message) {
  std::string last;
  std::string error;
  std::istringstream in(message);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    last = line;
    if (line.find("petname: error: ") != std::string::npos) error = line;
  }
  return error.empty() ? last : error;
}

bool PodFailed(const api::ObservedPod& pod, RankFailure* out) {
  if (pod.phase != "Failed" && pod.reason != "NodeLost") return false;
  RankFailure f;
  f.pod = pod.name;
  f.rank = pod.rank;
  f.disruption = IsDisruptionReason(pod.reason) || pod.ConditionTrue("DisruptionTarget");
  f.reason = pod.reason;
  f.message = pod.message;
  const std::optional<api::Termination>& t =
      pod.trainer_terminated ? pod.trainer_terminated : pod.init_failed;
  if (!pod.trainer_terminated && pod.init_failed) f.init_container = pod.init_failed_name;
  if (t) {
    f.exit_code = t->exit_code;
    if (f.reason.empty()) f.reason = t->reason;
    if (f.message.empty()) f.message = FailureLine(t->message);
  }
  if (f.reason.empty()) f.reason = "Failed";
  *out = std::move(f);
  return true;
}

bool CheckpointDirUnusable(const RankFailure& failure) {
  return failure.exit_code == kExitCheckpointDirUnusable && !failure.disruption;
}

bool DataFetchFailed(const RankFailure& failure) {
  return failure.init_container == kFetchContainer && !failure.disruption &&
         (failure.exit_code == 1 || failure.exit_code == 2);
}

bool Retryable(const std::string& restart_policy, const RankFailure& failure) {
  if (restart_policy == "Never" || CheckpointDirUnusable(failure) || DataFetchFailed(failure)) {
    return false;
  }
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
  if (!f.init_container.empty()) out += ": init container " + f.init_container;
  if (f.exit_code >= 0) {
    out += ": exit code " + std::to_string(f.exit_code) + " (" + f.reason + ")";
  } else {
    out += ": " + f.reason;
  }
  if (!f.message.empty()) out += ": " + f.message;
  return out;
}

}  // namespace petname::controller
