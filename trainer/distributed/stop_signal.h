// Preemption: SIGTERM (pod eviction, `kubectl delete`, the launcher forwarding a signal)
// only raises a flag. The training loop agrees on it with all ranks at the next step
// boundary (GradSync carries it with the gradients), rank 0 writes a checkpoint, and every
// rank exits with kExitPreempted, which the operator's restart policy treats as retryable.
#pragma once

namespace petname::dist {

// 128 + SIGTERM, the code shells and Kubernetes report for a terminated process.
constexpr int kExitPreempted = 143;

// Installs the SIGTERM handler. Idempotent.
void InstallStopHandler();

// True once SIGTERM has arrived since the last ClearStopRequest().
bool StopRequested();

void ClearStopRequest();

}  // namespace petname::dist
