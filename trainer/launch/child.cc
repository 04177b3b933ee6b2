#include "trainer/launch/child.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

extern char** environ;

namespace petname::launch {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t StartChild(const ChildSpec& spec) {
  std::vector<std::string> args = spec.args;
  std::vector<std::string> env = spec.env;
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    dup2(spec.stdout_fd, STDOUT_FILENO);
    dup2(spec.stderr_fd, STDERR_FILENO);
    execve(spec.executable.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    bool overridden = false;
    for (const auto& [key, value] : set) {
      overridden = overridden || entry.rfind(key + "=", 0) == 0;
    }
    if (!overridden) env.push_back(entry);
  }
  for (const auto& [key, value] : set) {
    if (!value.empty()) env.push_back(std::string(key).append("=").append(value));
  }
  return env;
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace petname::launch
