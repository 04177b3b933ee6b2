// The files of one rank's log of one attempt (layout: log_layout.h; bounds: log_cap.h), and the
// attempt directories around them. Pure POSIX (no LibTorch).
//
// Every directory is created with mode 0700 and every file with mode 0600, and neither is ever
// reached through a symlink at its own name: MakePrivateDir and OpenPrivateFile are the only
// places that create them. A log line is one write(2) on a descriptor opened O_APPEND, so a line
// is in the file (the page cache) as soon as Write returns, and a rank killed afterwards (even
// by SIGKILL) leaves it there.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/launch/log_cap.h"

namespace petname::launch {

// Creates directory `path` with mode 0700 unless it exists; an existing `path` must be a
// directory, not a symlink to one. Parents must exist.
Status MakePrivateDir(const std::string& path);

// Opens `path` for appending, creating it with mode 0600; refuses a symlink, and anything but
// a regular file. *fd is close-on-exec; *size is the file's size.
Status OpenPrivateFile(const std::string& path, int* fd, int64_t* size);

// The attempts found under `log_dir` (names log_layout.h parses), ascending; none when it does
// not exist.
std::vector<int> ListAttempts(const std::string& log_dir);

// The ranks with a head file in `attempt_dir`, ascending.
std::vector<int> ListRanks(const std::string& attempt_dir);

// Removes the attempts AttemptsToRemove chooses (kKeptAttempts), each with everything in it;
// the first failure is returned, the others are still tried.
Status PruneAttempts(const std::string& log_dir, int current);

class RankLog {
 public:
  // Creates `log_dir` (its parent must exist or be creatable: the checkpoint directory is made
  // here too when missing) and its attempt directory, then opens rank `rank`'s files to append.
  static Status Open(const std::string& log_dir, int attempt, int rank, const LogLimits& limits,
                     std::unique_ptr<RankLog>* out);
  ~RankLog();
  RankLog(const RankLog&) = delete;
  RankLog& operator=(const RankLog&) = delete;

  // Appends one line (ending in '\n'). After the first failure (disk full, ...) the log stops
  // and the error is kept; Write never fails the caller.
  void Write(const std::string& line);
  const Status& error() const { return error_; }
  const std::string& head_path() const { return head_path_; }

 private:
  RankLog(std::string dir, int rank, const LogLimits& limits, int head_fd, int64_t head_size,
          int tail_fd, int64_t tail_size);
  Status Rotate();
  void Append(int fd, const std::string& line);

  std::string dir_;
  int rank_;
  std::string head_path_;
  LogCap cap_;
  int head_fd_;
  int tail_fd_;  // -1 until the head is full
  Status error_;
};

}  // namespace petname::launch
