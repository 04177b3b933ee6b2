// Runs hostile_requests.py (the one corpus of hostile request heads; test_paths.h's
// HostileRequests()) against a server on 127.0.0.1, for the tests of every server built on
// HttpServer.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace petname::testing {

// Its exit status (0: every case as expected; -1: it could not run) and its lines in *output.
// `wait_s`: how long it retries the plain GET of a server still starting.
inline int RunHostileRequests(int port, const std::vector<std::string>& paths, std::string* output,
                              int wait_s = 0) {
  std::string command = std::string("python3 ") + HostileRequests() + " --wait " +
                        std::to_string(wait_s) + " " + std::to_string(port);
  for (const std::string& path : paths) command += " " + path;
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) output->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace petname::testing
