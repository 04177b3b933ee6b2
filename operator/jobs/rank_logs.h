// Where a failed rank's log of an attempt is kept, as the job's messages say it (pure).
//
// Every rank pod gets PETNAME_ATTEMPT = status.restarts (its gang attempt), set by the operator
// only (a PETNAME_ATTEMPT in spec.env is left out), and the trainer keeps each rank's output of
// the attempt in <log dir>/attempt-<A>/rank-<R>.log (trainer/cli/logs_cli.h). The log dir is
// <CheckpointDir>/logs on the checkpoint volume, or spec.env's PETNAME_LOG_DIR when it gives a
// value. RankLogHint names the failed pod's ranks' files of attempt `attempt`, e.g.
//   "rank 1's log of attempt 0: /checkpoints/j/logs/attempt-0/rank-1.log on claim ckpt (read it
//    from a pod that mounts the claim: petname logs --checkpoint-dir /checkpoints/j --attempt 0
//    --rank 1)"
// With an emptyDir checkpoint volume the log went with the pod; the hint says so.
#pragma once

#include <string>

#include "operator/api/job.h"
#include "operator/jobs/pod_failure.h"

namespace petname::controller {

inline constexpr char kAttemptEnv[] = "PETNAME_ATTEMPT";
inline constexpr char kLogDirEnv[] = "PETNAME_LOG_DIR";

// "" when the failure names no pod index or an init container failed (no trainer ran).
std::string RankLogHint(const api::Job& job, const RankFailure& failure, int attempt);

}  // namespace petname::controller
