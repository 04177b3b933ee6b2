// Rank logs from the command line (layout and bounds: launch/log_layout.h, launch/log_cap.h):
// where `petname train` keeps its own, and the `petname logs` subcommand that reads them.
//
//   petname train ... [--log-dir DIR]
//     Each rank copies its stdout and stderr into DIR/attempt-<A>/rank-<R>.log (launch/log_tee.h).
//     DIR: --log-dir, else $PETNAME_LOG_DIR, else <--checkpoint-dir>/logs; no checkpoint
//     directory and neither set: no log. A: $PETNAME_ATTEMPT (the operator sets the job's
//     status.restarts); unset, a run of one node (`--nproc N` included) takes one more than the
//     highest attempt in DIR and passes it to its ranks, while a rank of a larger world started
//     without it keeps no log (its peers could not agree on A). A log that cannot be created is
//     one "petname: warning: rank log not kept: ..." line; training goes on.
//
//   petname logs (--checkpoint-dir DIR | --log-dir DIR) [--attempt A] [--rank R]
//     Without --rank: one line per attempt (all, or A), "attempt A: rank R (B bytes), ...".
//     With --rank: that rank's log of attempt A (default: the newest attempt that has one),
//     its head then its tail segments, with one "[petname logs: ...]" line where output may
//     have been left out between them.
//     Exit 2: neither directory flag, a negative A or R; exit 1: no such log or directory.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/status.h"

namespace petname::cli {

// The environment variable the operator sets to the gang attempt.
inline constexpr char kAttemptEnv[] = "PETNAME_ATTEMPT";

struct RankLogFlags {
  std::string log_dir;         // --log-dir, default $PETNAME_LOG_DIR
  std::string checkpoint_dir;  // for the default
};

void AddLogDirFlag(CLI::App* train, RankLogFlags* flags);

// The launcher of `--nproc` ranks on one node: sets $PETNAME_ATTEMPT for its ranks when unset
// and a log directory applies. kInvalidArgument for a malformed $PETNAME_ATTEMPT.
Status ChooseLocalAttempt(const RankLogFlags& flags);

// A rank: starts copying its output into its log (rank `rank` of `world_size`). Returns
// kInvalidArgument for a malformed $PETNAME_ATTEMPT; other failures are a warning line.
Status KeepRankLog(const RankLogFlags& flags, int rank, int world_size);

struct LogsFlags {
  RankLogFlags dirs;
  std::optional<int> attempt;
  std::optional<int> rank;
};

CLI::App* AddLogsCommand(CLI::App* app, LogsFlags* flags);

Status RunLogsCommand(const LogsFlags& flags);

}  // namespace petname::cli
