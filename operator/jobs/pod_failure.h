// Rank failures read from observed pod status, and whether a restart policy retries them.
//
// A pod has failed when its phase is Failed, or when its node was lost (status.reason NodeLost).
// The exit code and reason come from the trainer container's terminated state (api/pod.h).
// Disruptions are failures the workload did not cause: pod reason Evicted, NodeLost, Preempting,
// Shutdown or Terminated, or a DisruptionTarget condition that is True (eviction, preemption, node
// drain, taint manager).
//
// Retryable(policy, f):
//   Never    - never;
//   OnFailure - always, except an unusable checkpoint directory (below);
//   ExitCode - disruptions, exit codes >= 128 (signals: 137 OOMKilled/SIGKILL, 143 SIGTERM) and
//              failures without any exit code; exit codes 1-127 are permanent.
// An unusable checkpoint directory (exit code 73, common/exit_codes.h, and not a disruption) is
// permanent under every policy: the trainer exits so at start-up when it cannot write its
// --checkpoint-dir (read-only volume, a path under a file), which a restart of the same pod spec
// cannot fix. The job fails at once with reason CheckpointDirUnusable instead of spending its
// backoffLimit.
//
// A pod whose init container failed (its trainer never ran) takes the exit code, reason and
// message from that init container's terminated state, and names it (init_container). When it
// is the operator's fetch-data container (data_fetch.h) exiting 1 or 2 (`petname fetch`: the
// download failed after its retries, the checksum differs, a usage error) and not a
// disruption, the failure is permanent under every policy (DataFetchFailed): restarting the
// same pod spec downloads the same bytes, so the job fails at once with reason DataFetchFailed.
//
// The trainer container uses terminationMessagePolicy FallbackToLogsOnError, so the terminated
// state's message of a failed trainer is the tail of its log (up to 80 lines). RankFailure keeps
// one line of it: the last "petname: error: ..." line (the CLI's one error line, also behind a
// launcher's "[rank R] " prefix), else the last non-empty line.
#pragma once

#include <string>

#include "operator/api/pod.h"

namespace petname::controller {

struct RankFailure {
  int rank = -1;  // the pod's index (label petname.dev/rank); its ranks with P processes per pod
                  // are rank*P .. rank*P+P-1
  std::string pod;
  int exit_code = -1;   // -1: no container terminated (eviction, node loss, admission error)
  std::string reason;   // CamelCase: OOMKilled, Error, Evicted, NodeLost, ... ("Failed" if none)
  std::string message;  // one line (see above)
  bool disruption = false;
  std::string init_container;  // the init container that failed ("" = none did)
};

// The line of a terminated state's message that explains the failure (see above).
std::string FailureLine(const std::string& message);

// True (and *out filled) when `pod` has failed.
bool PodFailed(const api::ObservedPod& pod, RankFailure* out);

bool Retryable(const std::string& restart_policy, const RankFailure& failure);

// True when the trainer reported an unusable checkpoint directory (see above).
bool CheckpointDirUnusable(const RankFailure& failure);

// True when the fetch-data init container could not provide the dataset (see above).
bool DataFetchFailed(const RankFailure& failure);

// With one process per pod: "rank 1 (pod rex-rank-1) failed: exit code 137 (OOMKilled): message";
// with P > 1: "pod rex-rank-1 (ranks 2..3) failed: ..." (parts absent when unknown); an init
// container's failure reads "...failed: init container fetch-data: exit code 1 (Error): ...".
std::string Describe(const RankFailure& failure, int processes_per_pod);

}  // namespace petname::controller
