// The `petname train` command line the multi-rank tests start ranks with: the test table's first
// 600 names, batch 32 per rank, one thread per rank, `epochs` epochs. Callers append their flags.
#pragma once

#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace petname::testing {

inline std::vector<std::string> SmallRunArgs(int epochs) {
  return {PetnameBin(),   "train", "--data",    TestData(), "--max-names", "600",
          "--batch-size", "32",    "--threads", "1",        "--epochs",    std::to_string(epochs)};
}

}  // namespace petname::testing
