// Runs the petname binary (test_paths.h's PetnameBin(), or $PETNAME_TEST_BIN when set:
// to run these tests against another build) as a child process and captures what it did, for
// tests that exercise the real executable.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace petname::testing {

struct RunResult {
  int exit_code = -1;      // -1 when killed by a signal
  int signal = 0;          // the signal that ended it, if any
  std::string out;         // stdout
  std::string err;         // stderr
  int64_t max_rss_kb = 0;  // the child's peak resident memory (wait4's ru_maxrss)
};

// Runs petname with `args`, its environment this process's plus (or overridden by) `env`.
RunResult RunPetname(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env = {});

// RunPetname without the privilege of reading and writing files whatever their mode: the child
// loses CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (dropped from its capability bounding set
// before exec, so a root child does not regain them), and file modes apply to it as to any user.
RunResult RunPetnameUnprivileged(const std::vector<std::string>& args);

}  // namespace petname::testing

namespace petname::testing {

// `petname train` on the first 200 names of the test data: small batches, one thread.
std::vector<std::string> SmallTrainArgs(int epochs, const std::string& checkpoint_dir);

}  // namespace petname::testing
