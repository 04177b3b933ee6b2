#include "tests/trainer/cli/trained_checkpoint.h"

#include <filesystem>

namespace petname::testing {

namespace fs = std::filesystem;

void TrainedCheckpointTest::SetUp() {
  trained_ = dir_.Join("trained");
  const RunResult r = RunPetname(SmallTrainArgs(1, trained_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

std::string TrainedCheckpointTest::CopyOfTrained(const std::string& name) {
  const std::string root = dir_.Join(name);
  fs::create_directories(root);
  fs::copy(trained_ + "/epoch-000001", root + "/epoch-000001", fs::copy_options::recursive);
  return root;
}

std::vector<std::string> TrainedCheckpointTest::Resume(const std::string& root, int epochs) {
  std::vector<std::string> args = SmallTrainArgs(epochs, root);
  args.push_back("--resume");
  return args;
}

}  // namespace petname::testing
