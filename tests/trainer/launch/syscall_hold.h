// Test helper: holds a real process at a system call, so that a test acts on a process that is
// provably at a given point of its work (instead of polling and hoping it is still there): the
// verdict does not depend on the machine's speed.
//
//   Subprocess p(argv, env, Subprocess::Gated{});
//   SyscallHold hold(&p);                     // traces it (ptrace) and lets it exec
//   ASSERT_TRUE(hold.UntilOpen(wanted)) << hold.error();
//   kill(p.pid(), SIGTERM);                   // it cannot move meanwhile
//   hold.Release();                           // it goes on and meets the signal
//
// The process and the processes it forks are traced (their first threads, not the others).
// UntilOpen runs them until one enters open(2) or openat(2) of a path `wanted` accepts (the path
// made absolute, and the open flags); that one stays stopped at the call's entry, the others at
// their next system call, until Release(), which lets all go with the signals sent meanwhile.
// Meant for a test process with no other children: it waits for any child. A process may
// always trace its own children (ptrace(2)); this needs no privilege.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>

#include "tests/trainer/launch/subprocess.h"

namespace petname::testing {

class SyscallHold {
 public:
  using OpenFilter = std::function<bool(const std::string& path, int flags)>;

  // `process` must have been started Gated; its gate is opened once it is traced.
  explicit SyscallHold(Subprocess* process);
  ~SyscallHold();
  SyscallHold(const SyscallHold&) = delete;
  SyscallHold& operator=(const SyscallHold&) = delete;

  // False, with error(), when tracing failed or every traced process ended first.
  bool UntilOpen(const OpenFilter& wanted);
  // The process stopped by UntilOpen.
  pid_t held() const { return held_; }
  void Release();
  const std::string& error() const { return error_; }

 private:
  struct Tracee {
    bool stopped = false;  // in a ptrace-stop we have not resumed
    int signal = 0;        // a signal to deliver when it is resumed or let go
  };
  // One stop or end of `pid`, already reaped; false when `pid` ended.
  bool Handle(pid_t pid, int status, const OpenFilter* wanted, bool* matched);
  bool Opens(pid_t pid, const OpenFilter& wanted);
  void Resume(pid_t pid);

  pid_t root_ = -1;
  pid_t held_ = -1;
  std::map<pid_t, Tracee> tracees_;
  std::string error_;
};

}  // namespace petname::testing
