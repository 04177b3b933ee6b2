#include "tests/trainer/launch/syscall_hold.h"

#include <fcntl.h>
#include <linux/ptrace.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

namespace petname::testing {
namespace {

// ptrace(2) through syscall(2): <sys/ptrace.h> and <linux/ptrace.h>, which has
// ptrace_syscall_info, do not go together.
long Ptrace(long request, pid_t pid, unsigned long addr, unsigned long data) {
  return ::syscall(SYS_ptrace, request, pid, addr, data);
}

constexpr unsigned long kOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
                                   PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;

bool Ended(const siginfo_t& info) {
  return info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED;
}

// The NUL-terminated string at `address` in `pid`'s memory.
std::string ReadString(pid_t pid, unsigned long address) {
  std::string out;
  char chunk[256];
  while (out.size() < PATH_MAX) {
    iovec local{chunk, sizeof chunk};
    // An address in the other process, not one to use here.
    iovec remote{
        reinterpret_cast<void*>(address + out.size()),  // NOLINT(performance-no-int-to-ptr)
        sizeof chunk};
    const ssize_t got = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got <= 0) break;
    const size_t n = ::strnlen(chunk, static_cast<size_t>(got));
    out.append(chunk, n);
    if (n < static_cast<size_t>(got)) break;
  }
  return out;
}

// `path` as `pid` would resolve it from `dirfd` (AT_FDCWD: its working directory).
std::string Absolute(pid_t pid, int dirfd, const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string link =
      dirfd == AT_FDCWD ? proc + "/cwd" : proc + "/fd/" + std::to_string(dirfd);
  std::error_code ec;
  return std::filesystem::read_symlink(link, ec).string() + "/" + path;
}

}  // namespace

SyscallHold::SyscallHold(Subprocess* process) : root_(process->pid()) {
  int status = 0;
  if (Ptrace(PTRACE_SEIZE, root_, 0, kOptions) != 0 || Ptrace(PTRACE_INTERRUPT, root_, 0, 0) != 0 ||
      ::waitpid(root_, &status, __WALL) != root_) {
    error_ =
        std::string("cannot trace process ") + std::to_string(root_) + ": " + std::strerror(errno);
  } else {
    tracees_[root_].stopped = true;
    Resume(root_);
  }
  process->OpenGate();
}

SyscallHold::~SyscallHold() { Release(); }

void SyscallHold::Resume(pid_t pid) {
  Tracee& t = tracees_[pid];
  Ptrace(PTRACE_SYSCALL, pid, 0, static_cast<unsigned long>(t.signal));
  t.stopped = false;
  t.signal = 0;
}

bool SyscallHold::Opens(pid_t pid, const OpenFilter& wanted) {
  ptrace_syscall_info info{};
  if (Ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof info, reinterpret_cast<unsigned long>(&info)) <=
          0 ||
      info.op != PTRACE_SYSCALL_INFO_ENTRY) {
    return false;
  }
  const auto& a = info.entry.args;
  int dirfd = AT_FDCWD;
  unsigned long path = 0;
  int flags = 0;
  if (info.entry.nr == SYS_openat) {
    dirfd = static_cast<int>(a[0]);
    path = a[1];
    flags = static_cast<int>(a[2]);
#ifdef SYS_open
  } else if (info.entry.nr == SYS_open) {
    path = a[0];
    flags = static_cast<int>(a[1]);
#endif
  } else {
    return false;
  }
  return wanted(Absolute(pid, dirfd, ReadString(pid, path)), flags);
}

bool SyscallHold::Handle(pid_t pid, int status, const OpenFilter* wanted, bool* matched) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    tracees_.erase(pid);
    return false;
  }
  Tracee& t = tracees_[pid];  // a new child may stop before its parent's fork event is seen
  t.stopped = true;
  const int sig = WSTOPSIG(status);
  const int event = status >> 16;
  if (sig == (SIGTRAP | 0x80)) {
    *matched = wanted != nullptr && Opens(pid, *wanted);
  } else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
    unsigned long child = 0;
    if (Ptrace(PTRACE_GETEVENTMSG, pid, 0, reinterpret_cast<unsigned long>(&child)) == 0) {
      tracees_[static_cast<pid_t>(child)];
    }
  } else if (event == 0) {
    t.signal = sig;  // a signal on its way in: delivered when the process goes on
  }
  return true;
}

bool SyscallHold::UntilOpen(const OpenFilter& wanted) {
  while (error_.empty() && !tracees_.empty()) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WSTOPPED | __WALL | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      error_ = std::string("waitid: ") + std::strerror(errno);
      break;
    }
    const pid_t pid = info.si_pid;
    if (pid == root_ && Ended(info)) {  // left for Subprocess::Wait to reap
      error_ = "the process ended before the open it was to be held at";
      tracees_.erase(pid);
      break;
    }
    int status = 0;
    ::waitpid(pid, &status, __WALL);
    bool matched = false;
    if (!Handle(pid, status, &wanted, &matched)) continue;
    if (matched) {
      held_ = pid;
      return true;
    }
    Resume(pid);
  }
  if (error_.empty()) error_ = "every traced process ended before the open it was to be held at";
  return false;
}

void SyscallHold::Release() {
  while (!tracees_.empty()) {
    const pid_t pid = tracees_.begin()->first;
    if (!tracees_.begin()->second.stopped) {
      siginfo_t info{};
      if (Ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0 ||
          ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WSTOPPED | __WALL | WNOWAIT) !=
              0) {
        tracees_.erase(pid);
        continue;
      }
      if (Ended(info) && pid == root_) {
        tracees_.erase(pid);
        continue;
      }
      int status = 0;
      ::waitpid(pid, &status, __WALL);
      bool matched = false;
      if (!Handle(pid, status, nullptr, &matched)) continue;
    }
    Ptrace(PTRACE_DETACH, pid, 0, static_cast<unsigned long>(tracees_[pid].signal));
    tracees_.erase(pid);
  }
  held_ = -1;
}

}  // namespace petname::testing
