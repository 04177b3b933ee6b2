#include "trainer/launch/log_tee.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

namespace petname::launch {
namespace {

struct Tee {
  std::unique_ptr<RankLog> log;
  int original[2] = {-1, -1};  // the process's stdout and stderr
  int read_end[2] = {-1, -1};
  std::thread thread;
  bool warned = false;
};

Tee* g_tee = nullptr;

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void Emit(Tee* tee, int stream, const std::string& line) {
  tee->log->Write(line);
  if (!tee->log->error().ok() && !tee->warned) {
    tee->warned = true;
    WriteAll(tee->original[1],
             "petname: warning: rank log stopped: " + tee->log->error().message() + "\n");
  }
  WriteAll(tee->original[stream], line);
}

void Copy(Tee* tee, size_t max_line) {
  LogLines lines[2] = {LogLines(max_line), LogLines(max_line)};
  int open = 2;
  while (open > 0) {
    pollfd fds[2] = {{tee->read_end[0], POLLIN, 0}, {tee->read_end[1], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int s = 0; s < 2; ++s) {
      if (fds[s].revents == 0 || tee->read_end[s] < 0) continue;
      char buf[4096];
      const ssize_t n = ::read(tee->read_end[s], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        for (const std::string& line : lines[s].Feed(buf, static_cast<size_t>(n))) {
          Emit(tee, s, line);
        }
        continue;
      }
      const std::string rest = lines[s].Flush();
      if (!rest.empty()) Emit(tee, s, rest);
      ::close(tee->read_end[s]);
      tee->read_end[s] = -1;  // poll ignores a negative descriptor
      --open;
    }
  }
}

void StopLogTee() {
  Tee* tee = g_tee;
  if (tee == nullptr) return;
  std::fflush(nullptr);
  ::dup2(tee->original[0], STDOUT_FILENO);
  ::dup2(tee->original[1], STDERR_FILENO);
  if (tee->thread.joinable()) tee->thread.join();
}

}  // namespace

Status StartLogTee(std::unique_ptr<RankLog> log, size_t max_line) {
  if (g_tee != nullptr) return Status::FailedPrecondition("the rank log is already kept");
  auto tee = std::make_unique<Tee>();
  tee->log = std::move(log);
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    return Status::IoError(std::string("cannot create a pipe: ") + std::strerror(errno), errno);
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return Status::IoError(std::string("cannot create a pipe: ") + std::strerror(err), err);
  }
  tee->original[0] = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  tee->original[1] = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  tee->read_end[0] = out_pipe[0];
  tee->read_end[1] = err_pipe[0];
  Tee* raw = tee.get();
  if (tee->original[0] >= 0 && tee->original[1] >= 0) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    try {
      raw->thread = std::thread(Copy, raw, max_line);
    } catch (const std::system_error&) {
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  if (!raw->thread.joinable()) {
    for (int fd :
         {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], raw->original[0], raw->original[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return Status::IoError("cannot start the thread that copies the output into the rank log");
  }
  std::fflush(nullptr);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  ::dup2(out_pipe[1], STDOUT_FILENO);
  ::dup2(err_pipe[1], STDERR_FILENO);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  g_tee = tee.release();  // lives until exit: the thread runs until then
  std::atexit(StopLogTee);
  return Status::Ok();
}

}  // namespace petname::launch
