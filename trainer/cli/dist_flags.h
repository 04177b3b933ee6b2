// The data-parallel part of `petname train`: where this rank sits (flags override the
// MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK/LOCAL_RANK environment, see dist/rank_env.h), the
// backend and timeouts, gradient bucketing, and --nproc N, which makes this process the
// local launcher of N ranks of itself (launch/launcher.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "trainer/dist/rank_env.h"
#include "trainer/train/train.h"

namespace petname::cli {

struct DistFlags {
  int nproc = 0;  // > 1: launch that many local ranks
  dist::RankOverrides ranks;
  std::string backend;  // empty: nccl with --device cuda, else gloo
  double rendezvous_timeout_s = 300;
  double collective_timeout_s = 300;
  // The model's gradients total ~1.9 MB (a layer ~0.5 MB). PyTorch's 25 MB default would put
  // them all in one bucket, started only after backward ends, i.e. no overlap; 0.25 MB gives
  // about two buckets per layer, so all but the first layer's all-reduce hide behind backward.
  double bucket_mb = 0.25;
  bool no_overlap = false;
  bool drop_last = false;
};

void AddDistFlags(CLI::App* train, DistFlags* flags);

// Fills the distribution fields of `options` from the flags and the environment. Errors are
// kInvalidArgument naming the flag or variable.
Status ApplyDistFlags(const DistFlags& flags, train::TrainOptions* options);

// Runs flags.nproc ranks of this executable with this process's arguments minus --nproc
// (plus --threads cores/N unless `threads_given`) and returns the launcher's exit code.
int LaunchLocalRanks(const DistFlags& flags, bool threads_given, int argc, char** argv);

}  // namespace petname::cli
