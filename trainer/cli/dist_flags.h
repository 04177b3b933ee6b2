// The data-parallel part of `petname train`: where this rank sits (flags override the
// MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK/LOCAL_RANK environment, see distributed/rank_env.h), the
// backend and timeouts, gradient bucketing, and --nproc N, which makes this process the
// local launcher of N ranks of itself (launch/launcher.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/status.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/train/train.h"

namespace petname::cli {

struct DistFlags {
  int nproc = 0;                 // > 1: launch that many local ranks
  std::optional<int> nnodes;     // with --nproc: launchers in the job (torchrun's --nnodes)
  std::optional<int> node_rank;  // with --nproc: this launcher's number
  dist::RankOverrides ranks;
  std::string backend;  // empty: $PETNAME_BACKEND, else nccl with --device cuda, else gloo
  double rendezvous_timeout_s = 300;
  double collective_timeout_s = 300;
  // The model's gradients total ~1.9 MB. PyTorch's 25 MB default would put them all in one
  // bucket, started only after backward ends (no overlap); 1 MB gives two buckets, the first
  // (head, layers 3 and 2) all-reduced while layers 1 and 0 run backward. Smaller buckets
  // measured worse on CPU (more Gloo round trips competing with compute): docs/performance.md.
  double bucket_mb = 1;
  bool no_overlap = false;
  bool drop_last = false;
};

// The waits --rendezvous-timeout and --collective-timeout may set, in seconds: from one
// millisecond (the unit they are kept in) to 7 days. A longer wait is of no use, and a far
// longer one overflowed the deadlines it is added to (1e300 s became a rendezvous that had
// "timed out after 0 s").
inline constexpr double kMinWaitSeconds = 0.001;
inline constexpr double kMaxWaitSeconds = 7 * 24 * 3600;

// Why `seconds` cannot be such a wait ("must be a number of seconds from ..."), or "". Pure.
std::string WaitSecondsProblem(double seconds);

// Adds the flags; the waits are checked as they are parsed (a usage error, exit 2).
void AddDistFlags(CLI::App* train, DistFlags* flags);

// Fills the distribution fields of `options` from the flags and the environment. Errors are
// kInvalidArgument naming the flag or variable.
Status ApplyDistFlags(const DistFlags& flags, train::TrainOptions* options);

// The backend the flags and the environment choose (dist::ChooseBackend: --backend, else
// PETNAME_BACKEND, else nccl for `device` cuda, else gloo), and in *source how it was chosen,
// for dist::CheckBackendBuilt's message. kInvalidArgument for a PETNAME_BACKEND it does not know.
Status ChosenBackend(const DistFlags& flags, const std::string& device, dist::Backend* out,
                     std::string* source);

// Whether OMP_NUM_THREADS is petname's own choice from the CPU budget, which the launcher and
// the operator mark with kAdaptiveThreadsEnv=1 (common/adaptive_threads.h), rather than the
// user's.
bool OmpNumThreadsFromPetname();

// Runs flags.nproc ranks of this executable with this process's arguments minus --nproc, as
// node --node-rank of --nnodes (dist::ParseNodeLayout), each with `threads` intra-op threads
// (--threads when > 0, else launch::ChooseThreads over the CPU budget), and sets *exit_code to
// the launcher's. Errors (kInvalidArgument): --world-size, --rank or --local-rank given with
// --nproc (the launcher sets them), or a bad node layout or OMP_NUM_THREADS.
Status LaunchLocalRanks(const DistFlags& flags, int threads, int argc, char** argv, int* exit_code);

}  // namespace petname::cli
