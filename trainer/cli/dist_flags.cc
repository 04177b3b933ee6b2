#include "trainer/cli/dist_flags.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/adaptive_threads.h"
#include "common/number_format.h"
#include "common/sha256.h"
#include "trainer/distributed/communicator.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/launch/cpu_budget.h"
#include "trainer/launch/launcher.h"

namespace petname::cli {
namespace {

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
}

// Checks a wait flag's value as it is parsed (WaitSecondsProblem).
CLI::Validator WaitSeconds() {
  return CLI::Validator(
      [](std::string& text) {
        double seconds = 0;
        if (!CLI::detail::lexical_cast(text, seconds)) return WaitSecondsProblem(NAN);
        return WaitSecondsProblem(seconds);
      },
      "SECONDS");
}

}  // namespace

std::string WaitSecondsProblem(double seconds) {
  if (seconds >= kMinWaitSeconds && seconds <= kMaxWaitSeconds) return "";
  return "must be a number of seconds from " + FixedDigits(kMinWaitSeconds, 3) + " to " +
         FixedDigits(kMaxWaitSeconds, 0) + " (7 days)";
}

void AddDistFlags(CLI::App* train, DistFlags* f) {
  train->add_option("--nproc", f->nproc,
                    "Run N data-parallel ranks on this machine (torchrun's --nproc-per-node)");
  train->add_option("--nnodes", f->nnodes,
                    "With --nproc: machines (pods) of N ranks in the job (env PET_NNODES; "
                    "needs MASTER_ADDR when > 1)");
  train->add_option("--node-rank", f->node_rank,
                    "With --nproc: this machine's number, 0 to nnodes-1 (env PET_NODE_RANK)");
  train
      ->add_option("--backend", f->backend,
                   "gloo or nccl (default: env PETNAME_BACKEND, else nccl for cuda, else gloo)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  train->add_option("--master-addr", f->ranks.master_addr, "Rank 0's address (env MASTER_ADDR)");
  train->add_option("--master-port", f->ranks.master_port, "Rendezvous port (env MASTER_PORT)");
  train->add_option("--world-size", f->ranks.world_size, "Number of ranks (env WORLD_SIZE)");
  train->add_option("--rank", f->ranks.rank, "This process's rank (env RANK)");
  train->add_option("--local-rank", f->ranks.local_rank, "Rank on this node (env LOCAL_RANK)");
  train
      ->add_option("--rendezvous-timeout", f->rendezvous_timeout_s,
                   "Seconds to wait for the master and the other ranks")
      ->capture_default_str()
      ->check(WaitSeconds());
  train
      ->add_option("--collective-timeout", f->collective_timeout_s,
                   "Seconds before a collective whose peer is gone fails")
      ->capture_default_str()
      ->check(WaitSeconds());
  train->add_option("--bucket-mb", f->bucket_mb, "Gradient all-reduce bucket size in MB")
      ->capture_default_str();
  train->add_flag("--no-overlap", f->no_overlap,
                  "One all-reduce after backward instead of buckets during it");
  train->add_flag("--drop-last", f->drop_last,
                  "Drop the epoch's tail instead of padding rank shards to equal length");
}

Status ApplyDistFlags(const DistFlags& f, train::TrainOptions* o) {
  for (auto [flag, value] : {std::pair{"--rendezvous-timeout", f.rendezvous_timeout_s},
                             {"--collective-timeout", f.collective_timeout_s}}) {
    const std::string problem = WaitSecondsProblem(value);
    if (!problem.empty()) return Status::InvalidArgument(std::string(flag) + " " + problem);
  }
  if (!(std::isfinite(f.bucket_mb) && f.bucket_mb > 0)) {
    return Status::InvalidArgument("--bucket-mb must be positive");
  }
  PETNAME_RETURN_IF_ERROR(dist::ParseRankConfig(dist::ProcessEnv(), f.ranks, &o->rank));
  PETNAME_RETURN_IF_ERROR(ChosenBackend(f, o->device, &o->comm.backend, &o->comm.backend_source));
  o->comm.rendezvous_timeout = Millis(f.rendezvous_timeout_s);
  o->comm.collective_timeout = Millis(f.collective_timeout_s);
  o->grad_sync.bucket_bytes = static_cast<size_t>(f.bucket_mb * (1 << 20));
  o->grad_sync.overlap = !f.no_overlap;
  o->drop_last = f.drop_last;
  return dist::RendezvousSecret(dist::ProcessEnv(), &o->comm.secret);
}

Status ChosenBackend(const DistFlags& f, const std::string& device, dist::Backend* out,
                     std::string* source) {
  return dist::ChooseBackend(dist::ProcessEnv(), f.backend, device, out, source);
}

bool OmpNumThreadsFromPetname() {
  const char* marked = std::getenv(kAdaptiveThreadsEnv);
  return marked != nullptr && std::string(marked) == "1";
}

Status LaunchLocalRanks(const DistFlags& f, int threads, int argc, char** argv, int* exit_code) {
  for (const auto& [flag, given] : {std::pair{"--world-size", f.ranks.world_size.has_value()},
                                    {"--rank", f.ranks.rank.has_value()},
                                    {"--local-rank", f.ranks.local_rank.has_value()}}) {
    if (given) {
      return Status::InvalidArgument(std::string(flag) +
                                     " cannot be combined with --nproc (the launcher sets it "
                                     "for each rank; use --nnodes and --node-rank)");
    }
  }
  dist::NodeLayout layout;
  PETNAME_RETURN_IF_ERROR(dist::ParseNodeLayout(
      dist::ProcessEnv(), {f.nnodes, f.node_rank, f.ranks.master_addr, f.ranks.master_port},
      &layout));
  launch::ThreadChoice choice;
  PETNAME_RETURN_IF_ERROR(launch::ChooseThreads(threads, std::getenv("OMP_NUM_THREADS"),
                                                OmpNumThreadsFromPetname(), launch::ReadCpuBudget(),
                                                f.nproc, &choice));
  launch::LaunchOptions options;
  options.nproc = f.nproc;
  options.nnodes = layout.nnodes;
  options.node_rank = layout.node_rank;
  options.master_addr = layout.master_addr;
  options.master_port = layout.master_port;
  options.args = launch::WithoutFlag({argv, argv + argc}, "--nproc");
  options.threads_per_rank = choice.threads;
  options.adaptive_threads = choice.adaptive;
  // One machine: its ranks share a fresh secret. Several: they must share the job's (the
  // operator's Secret); without one the ranks warn that the rendezvous is not authenticated.
  PETNAME_RETURN_IF_ERROR(dist::RendezvousSecret(dist::ProcessEnv(), &options.secret));
  if (options.secret.empty() && layout.nnodes == 1) {
    PETNAME_RETURN_IF_ERROR(RandomHex(32, &options.secret));
  }
  const int first = layout.node_rank * f.nproc;
  std::fprintf(stderr, "launcher: ranks %d..%d of %d, %d intra-op thread%s each (%s)\n", first,
               first + f.nproc - 1, layout.nnodes * f.nproc, choice.threads,
               choice.threads == 1 ? "" : "s", choice.why.c_str());
  *exit_code = launch::RunRanks(options);
  return Status::Ok();
}

}  // namespace petname::cli
