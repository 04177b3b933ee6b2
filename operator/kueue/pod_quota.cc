#include "operator/kueue/pod_quota.h"

namespace petname::controller {

bool HoldsQuota(const api::ObservedPod& pod, int64_t now) {
  if (pod.phase == "Succeeded" || pod.phase == "Failed") return false;
  return !pod.deleting || !pod.deletion_time || now < *pod.deletion_time;
}

std::optional<int64_t> NextGraceEnd(const std::vector<api::ObservedPod>& pods, int64_t now) {
  std::optional<int64_t> next;
  for (const api::ObservedPod& pod : pods) {
    if (!HoldsQuota(pod, now) || !pod.deleting || !pod.deletion_time) continue;
    const int64_t in = *pod.deletion_time - now;
    if (!next || in < *next) next = in;
  }
  return next;
}

}  // namespace petname::controller
