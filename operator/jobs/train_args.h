// The trainer's command line in a rank pod (`petname train ...`) and the intra-op threads it is
// given. Pure.
#pragma once

#include <string>
#include <vector>

#include "operator/api/job.h"

namespace petname::controller {

// The trainer container's termination message file: a failed trainer's log tail, or the final
// progress a successful rank 0 writes there (--termination-log).
inline constexpr char kTerminationLog[] = "/dev/termination-log";

// Intra-op threads of each rank, as the operator passes them: training.threads when set
// (`--threads count`, a fixed count); else, with resources.cpu set and OMP_NUM_THREADS not in
// the spec's env, max(1, floor(cpu cores) / P) (from_cpu: OMP_NUM_THREADS=count with
// PETNAME_ADAPTIVE_THREADS=1, an upper bound the trainer lowers while its threads wait for a
// CPU, common/adaptive_threads.h); else count 0: nothing is passed and the trainer derives
// them from its CPU quota and affinity.
struct Threads {
  int count = 0;
  bool from_cpu = false;
};
Threads RankThreads(const api::JobSpec& spec);

// The arguments after `petname train` for one pod: `--nproc P` first when P > 1, then data,
// hyper-parameters, checkpoint and metrics flags, `--resume`, `--threads` (RankThreads) and
// `--device cuda` with GPUs; `--max-data-bytes` with dataset.maxBytes.
// The checkpoint directory is api::CheckpointDir (the job's name under checkpoint.path unless
// checkpoint.subPath says otherwise).
std::vector<std::string> TrainArgs(const api::Job& job);

}  // namespace petname::controller
