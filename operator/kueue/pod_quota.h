// Whether a rank pod still holds its job's Kueue quota, one rule for every decision that waits
// for the pods (queue_admission.h: releasing an evicted reservation; workload_finalizer.h:
// removing Kueue's finalizer from a deleted, finished or orphaned Workload). Pure: the clock
// comes in as `now` (Unix seconds).
//
// A pod holds the quota while it may use node resources: it is neither Succeeded nor Failed and
// either not deleted, or deleted and still inside its grace period (metadata.deletionTimestamp,
// the time by which its node should have stopped it), in which the ranks write their checkpoint.
// A pod still Terminating past that time belongs to a node that does not confirm the deletion (a
// lost node): it no longer holds the quota, or an unreachable node would keep it for ever. A
// deleted pod whose deadline is unreadable holds it until it is gone. Kueue's own Job counts
// terminating pods as inactive at once; petname waits for the grace period.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "operator/api/pod.h"

namespace petname::controller {

bool HoldsQuota(const api::ObservedPod& pod, int64_t now);

// The seconds from `now` to the first end of a grace period among `pods` that is still ahead
// (when HoldsQuota of a pod changes without an event), or nullopt when there is none.
std::optional<int64_t> NextGraceEnd(const std::vector<api::ObservedPod>& pods, int64_t now);

}  // namespace petname::controller
