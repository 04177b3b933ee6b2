// The Workload's PodsReady condition for a job in a queue, a pure decision from the Workload
// (kueue/workload.h) and the job's own PodsReady; QueueSync (queue_sync.h) writes it.
#pragma once

#include <optional>

#include "operator/kueue/workload.h"

namespace petname::controller {

// The Workload's PodsReady condition as Kueue v0.17's jobframework writes it for its own kinds
// (generatePodsReadyCondition), from `ready` (the job's PodsReady) and the Workload's current one:
//  - not admitted: False, WaitForStart;
//  - ready: True, Started; Recovered when the current reason is WaitForRecovery or Recovered;
//  - not ready while the current one is True or WaitForRecovery (a rank failed after the ranks
//    had been ready since the admission): False, WaitForRecovery;
//  - else False, WaitForStart.
// Kueue's waitForPodsReady times WaitForStart from the admission (timeout) and WaitForRecovery
// from its own transition (recoveryTimeout), so a rank restart of a job that has run longer than
// the timeout does not evict it. An evicted Workload is no exception: once its reservation is
// released (not admitted) it is WaitForStart again, so that the next admission is timed from the
// admission, not from a WaitForRecovery of before the eviction (which would have Kueue evict it
// again at once). std::nullopt: nothing to write (no Workload, finished, being deleted, or it
// already has that status and reason).
std::optional<api::WorkloadCondition> WorkloadPodsReady(const api::WorkloadState& wl, bool ready);

}  // namespace petname::controller
