#include "operator/kueue/workload_pods_ready.h"

#include <string>

namespace petname::controller {

std::optional<api::WorkloadCondition> WorkloadPodsReady(const api::WorkloadState& wl, bool ready) {
  if (!wl.exists || wl.finished || wl.deleting) return std::nullopt;
  const std::string& was = wl.pods_ready_reason;
  api::WorkloadCondition c{false, api::kPodsReadyWaitForStart, api::kPodsReadyNotReady};
  if (wl.admitted && ready) {
    c = {true, was == "WaitForRecovery" || was == "Recovered" ? "Recovered" : "Started",
         "All pods reached readiness and the workload is running"};
  } else if (wl.admitted && (wl.pods_ready.value_or(false) || was == "WaitForRecovery")) {
    c = {false, "WaitForRecovery", "At least one pod has failed, waiting for recovery"};
  }
  if (wl.pods_ready == c.status && was == c.reason) return std::nullopt;
  return c;
}

}  // namespace petname::controller
