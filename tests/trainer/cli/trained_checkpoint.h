// A fixture for tests of damaged or planted checkpoints: a real one-epoch checkpoint trained
// by the binary under test, and fresh roots holding copies of it to damage.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/trainer/cli/run_petname.h"

namespace petname::testing {

class TrainedCheckpointTest : public ::testing::Test {
 protected:
  // Trains `trained_` (SmallTrainArgs, one epoch).
  void SetUp() override;

  // A fresh root `name` under dir_ holding a copy of the trained epoch-000001.
  std::string CopyOfTrained(const std::string& name);

  // SmallTrainArgs(epochs, root) with --resume.
  static std::vector<std::string> Resume(const std::string& root, int epochs);

  TempDir dir_;
  std::string trained_;
};

}  // namespace petname::testing
