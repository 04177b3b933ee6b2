#include "trainer/cli/dist_flags.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "trainer/dist/communicator.h"
#include "trainer/launch/launcher.h"

namespace petname::cli {
namespace {

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
}

}  // namespace

void AddDistFlags(CLI::App* train, DistFlags* f) {
  train->add_option("--nproc", f->nproc, "Run N data-parallel ranks on this machine");
  train->add_option("--backend", f->backend, "gloo or nccl (default: nccl for cuda, else gloo)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  train->add_option("--master-addr", f->ranks.master_addr, "Rank 0's address (env MASTER_ADDR)");
  train->add_option("--master-port", f->ranks.master_port, "Rendezvous port (env MASTER_PORT)");
  train->add_option("--world-size", f->ranks.world_size, "Number of ranks (env WORLD_SIZE)");
  train->add_option("--rank", f->ranks.rank, "This process's rank (env RANK)");
  train->add_option("--local-rank", f->ranks.local_rank, "Rank on this node (env LOCAL_RANK)");
  train
      ->add_option("--rendezvous-timeout", f->rendezvous_timeout_s,
                   "Seconds to wait for the master and the other ranks")
      ->capture_default_str();
  train
      ->add_option("--collective-timeout", f->collective_timeout_s,
                   "Seconds before a collective whose peer is gone fails")
      ->capture_default_str();
  train->add_option("--bucket-mb", f->bucket_mb, "Gradient all-reduce bucket size in MB")
      ->capture_default_str();
  train->add_flag("--no-overlap", f->no_overlap,
                  "One all-reduce after backward instead of buckets during it");
  train->add_flag("--drop-last", f->drop_last,
                  "Drop the epoch's tail instead of padding rank shards to equal length");
}

Status ApplyDistFlags(const DistFlags& f, train::TrainOptions* o) {
  for (auto [flag, value] : {std::pair{"--rendezvous-timeout", f.rendezvous_timeout_s},
                             {"--collective-timeout", f.collective_timeout_s},
                             {"--bucket-mb", f.bucket_mb}}) {
    if (!(std::isfinite(value) && value > 0)) {
      return Status::InvalidArgument(std::string(flag) + " must be positive");
    }
  }
  PETNAME_RETURN_IF_ERROR(dist::ParseRankConfig(dist::ProcessEnv(), f.ranks, &o->rank));
  o->comm.backend = ChosenBackend(f, o->device);
  o->comm.rendezvous_timeout = Millis(f.rendezvous_timeout_s);
  o->comm.collective_timeout = Millis(f.collective_timeout_s);
  o->grad_sync.bucket_bytes = static_cast<size_t>(f.bucket_mb * (1 << 20));
  o->grad_sync.overlap = !f.no_overlap;
  o->drop_last = f.drop_last;
  return Status::Ok();
}

dist::Backend ChosenBackend(const DistFlags& f, const std::string& device) {
  dist::Backend backend = device == "cuda" ? dist::Backend::kNccl : dist::Backend::kGloo;
  if (!f.backend.empty()) dist::ParseBackend(f.backend, &backend);
  return backend;
}

int LaunchLocalRanks(const DistFlags& f, bool threads_given, int argc, char** argv) {
  launch::LaunchOptions options;
  options.nproc = f.nproc;
  options.args = launch::WithoutFlag({argv, argv + argc}, "--nproc");
  options.threads_per_rank =
      launch::ThreadsPerRank(static_cast<int>(std::thread::hardware_concurrency()), f.nproc);
  if (!threads_given) {
    options.args.insert(options.args.end(),
                        {"--threads", std::to_string(options.threads_per_rank)});
  }
  return launch::RunRanks(options);
}

}  // namespace petname::cli
