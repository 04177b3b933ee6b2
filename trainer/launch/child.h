// Starting one child process of this machine: an executable with an argv array (never a
// shell) and an environment, in its own process group, with its stdout and stderr on given
// descriptors. Shared by the rank launcher (launcher.h) and `petname sweep`'s trial runner.
// Pure POSIX (no LibTorch).
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace petname::launch {

struct ChildSpec {
  std::string executable;
  std::vector<std::string> args;  // argv, argv[0] included
  std::vector<std::string> env;   // "KEY=VALUE" entries, the whole environment
  int stdout_fd = -1;             // dup'ed onto the child's stdout
  int stderr_fd = -1;             // and stderr
};

// Forks and execs `spec`. The child has default signal dispositions and an empty signal
// mask, leads a new process group and gets SIGTERM if this process dies. Returns the child's
// pid, or -1 with errno set when fork fails (an exec failure is exit code 127).
pid_t StartChild(const ChildSpec& spec);

// This process's environment with each (key, value) of `set` replacing any entry of that key;
// an empty value removes the key.
std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& set);

// The exit code of a waitpid status: the code, 128 + signal number for a signal, else 1.
int ExitCodeOf(int wait_status);

}  // namespace petname::launch
