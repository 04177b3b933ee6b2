#include "trainer/cli/logs_cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "common/untrusted_file.h"
#include "trainer/launch/log_cap.h"
#include "trainer/launch/log_layout.h"
#include "trainer/launch/log_tee.h"
#include "trainer/launch/rank_log.h"

namespace petname::cli {
namespace {

namespace fs = std::filesystem;

// The log directory the flags name; "" when none applies.
std::string LogDir(const RankLogFlags& flags) {
  std::string dir = flags.log_dir;
  if (dir.empty() && !flags.checkpoint_dir.empty()) {
    dir = (fs::path(flags.checkpoint_dir) / "logs").string();
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// $PETNAME_ATTEMPT: *set false when unset or empty.
Status EnvAttempt(bool* set, int* attempt) {
  const char* text = std::getenv(kAttemptEnv);
  *set = text != nullptr && *text != '\0';
  if (!*set) return Status::Ok();
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0 || value > launch::kMaxAttempt) {
    return Status::InvalidArgument(std::string("environment variable ") + kAttemptEnv +
                                   " must be a whole number from 0 to " +
                                   std::to_string(launch::kMaxAttempt) + " (got \"" + text + "\")");
  }
  *attempt = static_cast<int>(value);
  return Status::Ok();
}

void Warn(const std::string& what) {
  std::fprintf(stderr, "petname: warning: rank log not kept: %s\n", what.c_str());
}

int64_t FileSize(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

std::string DescribeAttempt(const std::string& log_dir, int attempt) {
  const fs::path dir = fs::path(log_dir) / launch::AttemptDirName(attempt);
  std::string line = "attempt " + std::to_string(attempt) + ":";
  const std::vector<int> ranks = launch::ListRanks(dir.string());
  if (ranks.empty()) return line + " no rank logs";
  for (size_t i = 0; i < ranks.size(); ++i) {
    const int r = ranks[i];
    const int64_t bytes = FileSize(dir / launch::RankLogName(r)) +
                          FileSize(dir / launch::RankTailName(r, 1)) +
                          FileSize(dir / launch::RankTailName(r, 0));
    line += (i == 0 ? " rank " : ", rank ") + std::to_string(r) + " (" + std::to_string(bytes) +
            " bytes)";
  }
  return line;
}

// Prints the file `name` of the attempt directory `dir`, which the log writer keeps within
// `bound` and one line (log_cap.h): a larger file, or one that is not a regular file, was not
// written by it and is damage (exit 1), never read whole.
Status PrintLogFile(const fs::path& dir, const std::string& name, int64_t bound) {
  const launch::LogLimits limits;
  UntrustedFileRules rules;
  rules.max_bytes = bound + static_cast<int64_t>(limits.max_line) + 1;
  rules.what = "rank log";
  rules.limit = "a kept log's bound of";
  std::string text;
  const Status st = ReadUntrustedFileIn(dir.string(), name, rules, &text);
  if (st.code() == Status::Code::kInvalidArgument) return Status::Corruption(st.message());
  PETNAME_RETURN_IF_ERROR(st);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return Status::Ok();
}

Status PrintRankLog(const std::string& log_dir, int attempt, int rank) {
  const fs::path dir = fs::path(log_dir) / launch::AttemptDirName(attempt);
  const fs::path head = dir / launch::RankLogName(rank);
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(head, ec))) {
    return Status::NotFound("no log of rank " + std::to_string(rank) + " in attempt " +
                            std::to_string(attempt) + " under " + log_dir);
  }
  const launch::LogLimits limits;
  PETNAME_RETURN_IF_ERROR(PrintLogFile(dir, launch::RankLogName(rank), limits.head_bytes));
  const fs::path older = dir / launch::RankTailName(rank, 1);
  if (fs::is_regular_file(fs::symlink_status(older, ec))) {
    std::printf("[petname logs: output after the first %lld bytes; some of it may be left out]\n",
                static_cast<long long>(FileSize(head)));
    PETNAME_RETURN_IF_ERROR(PrintLogFile(dir, launch::RankTailName(rank, 1), limits.segment_bytes));
  }
  const fs::path newer = dir / launch::RankTailName(rank, 0);
  if (fs::is_regular_file(fs::symlink_status(newer, ec))) {
    PETNAME_RETURN_IF_ERROR(PrintLogFile(dir, launch::RankTailName(rank, 0), limits.segment_bytes));
  }
  return Status::Ok();
}

}  // namespace

void AddLogDirFlag(CLI::App* train, RankLogFlags* flags) {
  const char* env = std::getenv("PETNAME_LOG_DIR");
  if (env != nullptr) flags->log_dir = env;
  train->add_option("--log-dir", flags->log_dir,
                    "Keep each rank's output of each attempt here, bounded (default "
                    "$PETNAME_LOG_DIR, else <checkpoint-dir>/logs; read with `petname logs`)");
}

Status ChooseLocalAttempt(const RankLogFlags& flags) {
  bool set = false;
  int attempt = 0;
  PETNAME_RETURN_IF_ERROR(EnvAttempt(&set, &attempt));
  const std::string dir = LogDir(flags);
  if (set || dir.empty()) return Status::Ok();
  attempt = launch::NextAttempt(launch::ListAttempts(dir));
  ::setenv(kAttemptEnv, std::to_string(attempt).c_str(), 1);
  return Status::Ok();
}

Status KeepRankLog(const RankLogFlags& flags, int rank, int world_size) {
  bool set = false;
  int attempt = 0;
  PETNAME_RETURN_IF_ERROR(EnvAttempt(&set, &attempt));
  const std::string dir = LogDir(flags);
  if (dir.empty() || (!set && world_size > 1)) return Status::Ok();
  if (!set) attempt = launch::NextAttempt(launch::ListAttempts(dir));
  const launch::LogLimits limits;
  std::unique_ptr<launch::RankLog> log;
  Status st = launch::RankLog::Open(dir, attempt, rank, limits, &log);
  if (!st.ok()) {
    Warn(st.message());
    return Status::Ok();
  }
  st = launch::PruneAttempts(dir, attempt);
  if (!st.ok()) Warn(st.message());
  st = launch::StartLogTee(std::move(log), limits.max_line);
  if (!st.ok()) Warn(st.message());
  return Status::Ok();
}

CLI::App* AddLogsCommand(CLI::App* app, LogsFlags* flags) {
  CLI::App* cmd = app->add_subcommand(
      "logs", "List the kept rank logs of each attempt, or print one rank's log.");
  cmd->add_option("--checkpoint-dir", flags->dirs.checkpoint_dir,
                  "The run's --checkpoint-dir (its logs are in <dir>/logs)");
  cmd->add_option("--log-dir", flags->dirs.log_dir, "The run's --log-dir, when it had one");
  cmd->add_option("--attempt", flags->attempt,
                  "Attempt number (the job's restarts when it ran; default: the newest)")
      ->check(CLI::Range(0, launch::kMaxAttempt));
  cmd->add_option("--rank", flags->rank, "Print this global rank's log")
      ->check(CLI::Range(0, launch::kMaxAttempt));
  return cmd;
}

Status RunLogsCommand(const LogsFlags& flags) {
  const std::string dir = LogDir(flags.dirs);
  if (dir.empty())
    return Status::InvalidArgument("petname logs needs --checkpoint-dir or --log-dir");
  std::vector<int> attempts = launch::ListAttempts(dir);
  if (attempts.empty()) return Status::NotFound("no rank logs under " + dir);
  if (flags.attempt &&
      std::find(attempts.begin(), attempts.end(), *flags.attempt) == attempts.end()) {
    return Status::NotFound("no attempt " + std::to_string(*flags.attempt) + " under " + dir);
  }
  if (!flags.rank) {
    for (int a : attempts) {
      if (!flags.attempt || a == *flags.attempt)
        std::printf("%s\n", DescribeAttempt(dir, a).c_str());
    }
    return Status::Ok();
  }
  int attempt = flags.attempt.value_or(attempts.back());
  if (!flags.attempt) {
    for (int a : attempts) {
      const std::vector<int> ranks =
          launch::ListRanks((fs::path(dir) / launch::AttemptDirName(a)).string());
      if (std::find(ranks.begin(), ranks.end(), *flags.rank) != ranks.end()) attempt = a;
    }
  }
  return PrintRankLog(dir, attempt, *flags.rank);
}

}  // namespace petname::cli
