#include "operator/jobs/attempt_pods.h"

namespace petname::controller {

Attempt CurrentAttempt(const std::vector<api::ObservedPod>& owned, int generation) {
  Attempt a;
  for (const api::ObservedPod& pod : owned) {
    if (!pod.deleting && pod.restart_generation == generation) {
      a.current.push_back(pod);
    } else {
      a.stale = true;
    }
  }
  return a;
}

PodCounts CountPods(const std::vector<api::ObservedPod>& pods) {
  PodCounts c;
  for (const api::ObservedPod& pod : pods) {
    if (pod.phase == "Running") {
      ++c.running;
      if (pod.ConditionTrue("Ready")) ++c.ready;
    } else if (pod.phase == "Succeeded") {
      ++c.succeeded;
    } else if (pod.phase == "Failed") {
      ++c.failed;
    } else {
      ++c.pending;
    }
  }
  return c;
}

void SetPodCounts(const PodCounts& c, api::JobStatus* status) {
  status->active = c.pending + c.running;
  status->ready = c.ready;
  status->succeeded = c.succeeded;
  status->failed = c.failed;
}

}  // namespace petname::controller
