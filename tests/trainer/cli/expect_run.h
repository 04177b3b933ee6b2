// Expectations shared by the tests that run the petname binary (run_petname.h).
#pragma once

#include <string>
#include <vector>

#include "tests/trainer/cli/run_petname.h"

namespace petname::testing {

// The run failed with `exit_code` and one error line naming the problem, its last line on
// stderr. Bad flags and data fail before anything else is said: there the error is the
// only line. Checkpoint problems come after the data summary note (`only_line` false).
void ExpectOneLineError(const RunResult& r, int exit_code, const std::string& needle,
                        bool only_line = true);

// The checkpoints under `root` are exactly `names`, each verifies, and no staging is left.
void ExpectCheckpoints(const std::string& root, const std::vector<std::string>& names);

}  // namespace petname::testing
