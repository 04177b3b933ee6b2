#include "trainer/launch/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/adaptive_threads.h"
#include "trainer/launch/child.h"
#include "trainer/launch/free_port.h"
#include "trainer/launch/line_prefixer.h"

namespace petname::launch {
namespace {

using Clock = std::chrono::steady_clock;

int g_signal_pipe[2] = {-1, -1};

void OnSignal(int signo) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(signo);
  (void)!write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

// One child output stream being copied to ours.
struct Stream {
  int fd = -1;  // read end; -1 once closed
  int out_fd = -1;
  LinePrefixer prefixer{""};
};

struct Rank {
  pid_t pid = -1;
  bool running = false;
  Stream out, err;
};

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void Drain(Stream* s) {
  char buf[4096];
  ssize_t n = read(s->fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) {
    WriteAll(s->out_fd, s->prefixer.Feed(buf, static_cast<size_t>(n)));
    return;
  }
  WriteAll(s->out_fd, s->prefixer.Flush());
  close(s->fd);
  s->fd = -1;
}

int GlobalRank(const LaunchOptions& options, int local) {
  return options.node_rank * options.nproc + local;
}

std::vector<std::string> ChildEnv(const LaunchOptions& options, int port, int local) {
  return EnvironmentWith({
      {"MASTER_ADDR", options.master_addr},
      {"MASTER_PORT", std::to_string(port)},
      {"WORLD_SIZE", std::to_string(options.nnodes * options.nproc)},
      {"RANK", std::to_string(GlobalRank(options, local))},
      {"LOCAL_RANK", std::to_string(local)},
      {"LOCAL_WORLD_SIZE", std::to_string(options.nproc)},
      {"PETNAME_RENDEZVOUS_SECRET", options.secret},
      {"OMP_NUM_THREADS",
       options.threads_per_rank > 0 ? std::to_string(options.threads_per_rank) : ""},
      {kAdaptiveThreadsEnv, options.adaptive_threads ? "1" : ""},
  });
}

// Starts one rank; false (with errno set) when the pipes or fork fail.
bool Spawn(const LaunchOptions& options, int port, int index, Rank* rank) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return false;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return false;
  }
  const pid_t pid = StartChild(
      {options.executable, options.args, ChildEnv(options, port, index), out_pipe[1], err_pipe[1]});
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return false;
  }
  const std::string prefix = "[rank " + std::to_string(GlobalRank(options, index)) + "] ";
  rank->pid = pid;
  rank->running = true;
  rank->out = Stream{out_pipe[0], STDOUT_FILENO, LinePrefixer(prefix)};
  rank->err = Stream{err_pipe[0], STDERR_FILENO, LinePrefixer(prefix)};
  return true;
}

void SignalAll(std::vector<Rank>& ranks, int signo) {
  for (auto& r : ranks) {
    if (r.running) kill(r.pid, signo);
  }
}

// Installs the launcher's handlers for its lifetime and restores the old ones after.
class SignalScope {
 public:
  SignalScope() {
    if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &old_[i]);
  }
  ~SignalScope() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
    close(g_signal_pipe[0]);
    close(g_signal_pipe[1]);
    g_signal_pipe[0] = g_signal_pipe[1] = -1;
  }
  bool ok() const { return g_signal_pipe[0] >= 0; }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGCHLD};
  struct sigaction old_[3] = {};
};

}  // namespace

std::vector<std::string> WithoutFlag(const std::vector<std::string>& args,
                                     const std::string& flag) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == flag) {
      ++i;  // and its value
    } else if (args[i].rfind(flag + "=", 0) != 0) {
      out.push_back(args[i]);
    }
  }
  return out;
}

int RunRanks(const LaunchOptions& options) {
  SignalScope signals;
  if (!signals.ok()) {
    std::fprintf(stderr, "launcher: cannot create a pipe: %s\n", std::strerror(errno));
    return 1;
  }
  const int port = options.master_port > 0 ? options.master_port : FreeTcpPort();
  if (port == 0) {
    std::fprintf(stderr, "launcher: no free TCP port on 127.0.0.1\n");
    return 1;
  }
  std::vector<Rank> ranks(static_cast<size_t>(options.nproc));
  int result = 0;
  bool failed = false;
  Clock::time_point kill_at = Clock::time_point::max();
  for (int i = 0; i < options.nproc; ++i) {
    if (!Spawn(options, port, i, &ranks[static_cast<size_t>(i)])) {
      std::fprintf(stderr, "launcher: cannot start rank %d (%s): %s\n", GlobalRank(options, i),
                   options.executable.c_str(), std::strerror(errno));
      result = 1;
      failed = true;
      SignalAll(ranks, SIGTERM);
      kill_at = Clock::now() + options.grace;
      break;
    }
  }

  int forwarded = 0;
  for (;;) {
    std::vector<pollfd> fds{{g_signal_pipe[0], POLLIN, 0}};
    std::vector<Stream*> streams;
    bool any_running = false;
    for (auto& r : ranks) {
      any_running = any_running || r.running;
      for (Stream* s : {&r.out, &r.err}) {
        if (s->fd < 0) continue;
        fds.push_back({s->fd, POLLIN, 0});
        streams.push_back(s);
      }
    }
    if (!any_running && streams.empty()) break;
    int timeout_ms = -1;
    if (kill_at != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    int n = poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) break;
    if (Clock::now() >= kill_at) {
      SignalAll(ranks, SIGKILL);
      kill_at = Clock::time_point::max();
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents != 0) Drain(streams[i - 1]);
    }
    if (fds[0].revents == 0) continue;
    unsigned char signo;
    while (read(g_signal_pipe[0], &signo, 1) == 1) {
      if (signo == SIGCHLD) continue;
      ++forwarded;
      SignalAll(ranks, forwarded == 1 ? signo : SIGKILL);
    }
    for (size_t i = 0; i < ranks.size(); ++i) {
      int status;
      if (!ranks[i].running || waitpid(ranks[i].pid, &status, WNOHANG) != ranks[i].pid) continue;
      ranks[i].running = false;
      int code = ExitCodeOf(status);
      if (code != 0 && !failed) {
        failed = true;
        result = code;
        std::fprintf(stderr, "launcher: rank %d exited with code %d; stopping the others\n",
                     GlobalRank(options, static_cast<int>(i)), code);
        SignalAll(ranks, SIGTERM);
        kill_at = Clock::now() + options.grace;
      }
    }
  }
  return result;
}

}  // namespace petname::launch
