// Checks of flag values that more than one subcommand makes; each error is the usage error's
// one line (kInvalidArgument, exit 2) naming the flag.
#pragma once

#include "common/status.h"

namespace petname::cli {

// OK when `value` is finite and above 0; else "<flag> must be positive (got <value>)".
Status Positive(const char* flag, double value);

}  // namespace petname::cli
