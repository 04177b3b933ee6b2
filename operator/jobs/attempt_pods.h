// The rank pods of a job's current attempt and their counts. Pure.
//
// Only pods of the current restart generation (label petname.dev/restart-generation ==
// status.restarts) that are not being deleted belong to the attempt; status.active (Pending and
// Running), ready (Running and Ready), succeeded and failed count its pods (a pod of P processes
// is one pod; status.ranks counts ranks).
#pragma once

#include <vector>

#include "operator/api/job_status.h"
#include "operator/api/pod.h"

namespace petname::controller {

struct Attempt {
  std::vector<api::ObservedPod> current;  // the attempt's pods
  bool stale = false;                     // other pods of the job remain (earlier, or deleting)
};
Attempt CurrentAttempt(const std::vector<api::ObservedPod>& owned, int generation);

struct PodCounts {
  int pending = 0, running = 0, ready = 0, succeeded = 0, failed = 0;
};
PodCounts CountPods(const std::vector<api::ObservedPod>& pods);

// status.active, ready, succeeded and failed from `counts`.
void SetPodCounts(const PodCounts& counts, api::JobStatus* status);

}  // namespace petname::controller
