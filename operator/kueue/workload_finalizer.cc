#include "operator/kueue/workload_finalizer.h"

#include <algorithm>

#include "operator/kube/object.h"
#include "operator/kueue/pod_quota.h"

namespace petname::controller {

bool ReleaseWorkload(const api::WorkloadState& wl, const std::vector<api::ObservedPod>& pods,
                     int64_t now) {
  if (!wl.exists || !wl.in_use || !(wl.deleting || wl.finished)) return false;
  return std::none_of(pods.begin(), pods.end(),
                      [now](const api::ObservedPod& pod) { return HoldsQuota(pod, now); });
}

std::vector<nlohmann::json> OrphanedWorkloads(const std::vector<nlohmann::json>& workloads,
                                              const std::vector<nlohmann::json>& pods,
                                              const std::string& live_uid, int64_t now) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& wl : workloads) {
    const std::string owner = kube::Label(wl, api::kJobUidLabel);
    if (!api::WorkloadStateFromJson(wl).in_use || owner.empty() || owner == live_uid ||
        (!live_uid.empty() && kube::IsControlledBy(wl, live_uid))) {
      continue;
    }
    const bool held = std::any_of(pods.begin(), pods.end(), [&](const nlohmann::json& p) {
      return kube::IsControlledBy(p, owner) && HoldsQuota(api::PodFromJson(p), now);
    });
    if (!held) out.push_back(wl);
  }
  return out;
}

}  // namespace petname::controller
