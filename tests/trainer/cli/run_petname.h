// Runs the petname binary (path from the PETNAME_BIN definition) as a child process and
// captures what it did, for tests that exercise the real executable.
#pragma once

#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace petname::testing {

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, if any
  std::string out;     // stdout
  std::string err;     // stderr
};

RunResult RunPetname(const std::vector<std::string>& args);

// RunPetname without the privilege of reading and writing files whatever their mode: the child
// loses CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (dropped from its capability bounding set
// before exec, so a root child does not regain them), and file modes apply to it as to any user.
RunResult RunPetnameUnprivileged(const std::vector<std::string>& args);

}  // namespace petname::testing

namespace petname::testing {

// `petname train` on the first 200 names of the test data: small batches, one thread.
std::vector<std::string> SmallTrainArgs(int epochs, const std::string& checkpoint_dir);

}  // namespace petname::testing
