// The gang restart of a PetNameTrainingJob: what a failed rank does to the job, and when the ranks
// are recreated after a restart. Pure.
//
// Only pods of the current restart generation (label petname.dev/restart-generation ==
// status.restarts) count; the lowest-ranked failed one (pod_failure.h) decides:
//  - a failure the restart policy does not retry (Retryable): the job fails, reason RankFailed;
//    an unusable checkpoint directory: CheckpointDirUnusable; a failed download of dataset.url:
//    DataFetchFailed (neither retried under any policy);
//  - a retryable one with status.restarts >= backoffLimit: the job fails, reason
//    BackoffLimitExceeded, naming the last failure;
//  - otherwise a gang restart: restarts+1, lastRestartTime=now, phase and condition Restarting
//    (reason from the failure, message naming the rank, or with several processes per pod the pod
//    and its ranks, and the exit code, with where the rank's log is: rank_logs.h), all rank pods
//    deleted. Once none is left and RestartDelaySeconds has passed since lastRestartTime, the ranks
//    are recreated (they always run with --resume) and the phase goes back to Pending
//    (lifecycle.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "operator/api/job.h"
#include "operator/api/pod.h"
#include "operator/jobs/pod_failure.h"

namespace petname::controller {

// Restart delay before recreating the ranks after the `restarts`-th restart:
// restartBackoffSeconds * 2^(restarts-1), capped at 300 s.
int64_t RestartDelaySeconds(const api::JobSpec& spec, int restarts);

// The failure of the lowest-ranked failed pod of `current`, or nullopt when none failed.
std::optional<RankFailure> FirstRankFailure(const std::vector<api::ObservedPod>& current);

// What the failure `f` of restart generation `generation` does to the job.
struct RestartDecision {
  // True: a gang restart, with condition Restarting's reason and message; false: the job fails
  // with this reason and message.
  bool restart = false;
  std::string reason;
  std::string message;
  // The failure as the conditions name it (the rank, its exit code, where its log is).
  std::string failure;
};
RestartDecision DecideRestart(const api::Job& job, const RankFailure& f, int generation);

// Seconds until the ranks of restart status.restarts may be created again: 0 once
// RestartDelaySeconds has passed since status.lastRestartTime (or when it is unset).
int64_t RecreateInSeconds(const api::JobSpec& spec, const api::JobStatus& status, int64_t now);

}  // namespace petname::controller
