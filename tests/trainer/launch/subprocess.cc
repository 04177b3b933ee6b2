#include "tests/trainer/launch/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace petname::testing {

Subprocess::Subprocess(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env) {
  Start(argv, env, /*gated=*/false);
}

Subprocess::Subprocess(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env, Gated) {
  Start(argv, env, /*gated=*/true);
}

void Subprocess::Start(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env, bool gated) {
  char path[] = "/tmp/petname-subprocess-XXXXXX";
  int fd = mkstemp(path);
  output_path_ = path;
  std::vector<std::string> args = argv;
  std::vector<char*> c_args;
  for (auto& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  int gate[2] = {-1, -1};
  if (gated && pipe2(gate, O_CLOEXEC) != 0) gate[0] = gate[1] = -1;
  pid_ = fork();
  if (pid_ == 0) {
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (gate[0] >= 0) {
      char byte = 0;
      close(gate[1]);
      while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {
      }
    }
    execv(c_args[0], c_args.data());
    _exit(127);
  }
  close(fd);
  if (gate[0] >= 0) close(gate[0]);
  gate_ = gate[1];
}

void Subprocess::OpenGate() {
  if (gate_ < 0) return;
  close(gate_);  // the child's read returns 0: end of file
  gate_ = -1;
}

Subprocess::~Subprocess() {
  OpenGate();
  if (pid_ > 0) Wait(std::chrono::seconds(0));
  unlink(output_path_.c_str());
}

int Subprocess::Wait(std::chrono::seconds limit) {
  if (pid_ <= 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, WNOHANG, &usage) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
  peak_rss_bytes_ = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

std::string Subprocess::Output() const {
  std::ifstream in(output_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               std::string* output) {
  Subprocess p(argv, env);
  int code = p.Wait();
  *output = p.Output();
  return code;
}

}  // namespace petname::testing
