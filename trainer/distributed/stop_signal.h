// Preemption: SIGTERM (pod eviction, `kubectl delete`, the launcher forwarding a signal).
//
// Until training starts there is nothing to save, so SIGTERM ends the process at once
// (InstallExitOnStop, the first thing main() does): one line "petname: error: stopped by
// SIGTERM before training started" and exit kExitPreempted, wherever the process waits (data
// loading, a rendezvous whose peers never come, c10d's own waits). A trainer that is PID 1 of
// its container therefore stops within the grace period instead of ignoring the signal.
//
// Once the ranks have met and the checkpoint to resume from and the metrics log are read
// (train.cc installs InstallStopHandler then, before the training loop), SIGTERM only raises a
// flag. The loop agrees on it with all ranks at the next step boundary (GradSync carries it
// with the gradients), rank 0 writes a checkpoint, and every rank exits with kExitPreempted,
// which the operator's restart policy treats as retryable.
#pragma once

namespace petname::dist {

// 128 + SIGTERM, the code shells and Kubernetes report for a terminated process.
constexpr int kExitPreempted = 143;

// Makes SIGTERM print the one error line and _exit(kExitPreempted). Async-signal-safe.
void InstallExitOnStop();

// Makes SIGTERM raise the stop flag instead. Idempotent.
void InstallStopHandler();

// True once SIGTERM has arrived since the last ClearStopRequest().
bool StopRequested();

void ClearStopRequest();

}  // namespace petname::dist
