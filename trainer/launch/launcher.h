// The local launcher behind `petname train --nproc N`: runs N rank processes of one
// executable on this machine, like torchrun's standalone mode. Pure POSIX (no LibTorch).
//
// Contract:
//  - Each child is `executable` with `args` (no shell), its own process group, and the
//    environment of this process plus MASTER_ADDR, MASTER_PORT (a free port), WORLD_SIZE,
//    RANK, LOCAL_RANK and, when threads_per_rank > 0, OMP_NUM_THREADS. If the launcher
//    dies, the children get SIGTERM.
//  - Every line a child writes to stdout/stderr is copied to the same stream of this
//    process prefixed with "[rank i] ".
//  - SIGINT/SIGTERM received by the launcher are forwarded to every running rank; a second
//    one kills them.
//  - When a rank exits non-zero (or by a signal) the others get SIGTERM and, after `grace`,
//    SIGKILL, so RunRanks returns within about `grace` of the first failure.
//  - Returns 0 when every rank exits 0, otherwise the first failing rank's code (128 +
//    signal number for a signal), or 1 when a rank could not be started.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace petname::launch {

struct LaunchOptions {
  int nproc = 1;
  std::string executable = "/proc/self/exe";
  std::vector<std::string> args;  // argv of every child, argv[0] included
  int threads_per_rank = 0;
  std::string master_addr = "127.0.0.1";
  std::chrono::milliseconds grace = std::chrono::seconds(10);
};

int RunRanks(const LaunchOptions& options);

// A TCP port on 127.0.0.1 that was free a moment ago, or 0 on failure.
int FreeTcpPort();

// Threads for each of `nproc` ranks sharing `cores` cores: max(1, cores / nproc).
int ThreadsPerRank(int cores, int nproc);

}  // namespace petname::launch
