// The launcher behind `petname train --nproc N`: runs N rank processes of one executable on
// this machine, like torchrun: standalone (one node, a free local port) or as node
// `node_rank` of `nnodes` (a pod of a multi-pod job) sharing a master. Pure POSIX (no LibTorch).
//
// Contract:
//  - Each child is `executable` with `args` (no shell), its own process group, and the
//    environment of this process plus MASTER_ADDR, MASTER_PORT (master_port, or a free port
//    when 0), WORLD_SIZE = nnodes * nproc, RANK = node_rank * nproc + local rank, LOCAL_RANK,
//    LOCAL_WORLD_SIZE = nproc, PETNAME_RENDEZVOUS_SECRET = secret when set and, when
//    threads_per_rank > 0, OMP_NUM_THREADS, with kAdaptiveThreadsEnv "1" when adaptive_threads
//    (common/adaptive_threads.h; removed otherwise). If the launcher dies, the children get
//    SIGTERM.
//  - Every line a child writes to stdout/stderr is copied to the same stream of this
//    process prefixed with "[rank R] " (R its global rank).
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
  int nnodes = 1;
  int node_rank = 0;
  std::string executable = "/proc/self/exe";
  std::vector<std::string> args;  // argv of every child, argv[0] included
  int threads_per_rank = 0;
  bool adaptive_threads = false;  // threads_per_rank came from the CPU budget, not the user
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port of this machine (one node only; free_port.h)
  std::string secret;   // the ranks' rendezvous secret (distributed/peer_check.h)
  std::chrono::milliseconds grace = std::chrono::seconds(10);
};

int RunRanks(const LaunchOptions& options);

// `args` without the option `flag` and its value ("--flag V" or "--flag=V").
std::vector<std::string> WithoutFlag(const std::vector<std::string>& args, const std::string& flag);

}  // namespace petname::launch
