// Test helper: runs a real process with extra environment variables, its stdout and stderr
// going to one file. Wait() kills it after `limit` so a hanging process fails the test
// instead of hanging it. Started Gated, the child waits before its exec until OpenGate(), so
// that a tracer (tests/trainer/launch/syscall_hold.h) attaches before the program runs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace petname::testing {

class Subprocess {
 public:
  struct Gated {};
  Subprocess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
  Subprocess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             Gated);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Lets a Gated child go on to its exec. Idempotent.
  void OpenGate();

  pid_t pid() const { return pid_; }

  // Exit code (128 + signal for a signal); -1 when it had to be killed at `limit`.
  int Wait(std::chrono::seconds limit = std::chrono::seconds(120));

  // Everything the process wrote so far.
  std::string Output() const;

  // Its peak resident memory (the kernel's ru_maxrss), once Wait() has reaped it; 0 before.
  int64_t peak_rss_bytes() const { return peak_rss_bytes_; }

 private:
  void Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             bool gated);

  pid_t pid_ = -1;
  int gate_ = -1;  // write end of the pipe a Gated child reads before its exec
  std::string output_path_;
  int64_t peak_rss_bytes_ = 0;
};

// Runs to completion; *output receives stdout and stderr.
int RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               std::string* output);

}  // namespace petname::testing
