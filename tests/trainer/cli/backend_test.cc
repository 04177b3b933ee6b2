// The c10d backend through the real binary: the operator passes a job's spec.backend as
// PETNAME_BACKEND, which the trainer uses unless --backend is given; a name it does not know,
// or a backend this build lacks, is one line and exit 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_paths.h"
#include "tests/trainer/launch/subprocess.h"

namespace petname::testing {
namespace {

// One epoch on 200 names, one rank.
std::vector<std::string> Args() {
  return {PetnameBin(), "train", "--data",       TestData(), "--max-names", "200",
          "--epochs",   "1",     "--batch-size", "128",      "--threads",   "1"};
}

TEST(BackendTest, PetnameBackendIsReadAndTheFlagWinsOverIt) {
  std::string out;
  EXPECT_EQ(RunProcess(Args(), {{"PETNAME_BACKEND", "mpi"}}, &out), 2) << out;
  EXPECT_NE(out.find("petname: error: PETNAME_BACKEND='mpi' is not a backend: gloo or nccl"),
            std::string::npos)
      << out;
  // One Gloo rank forms no group, so this trains on every build.
  std::vector<std::string> args = Args();
  args.insert(args.end(), {"--backend", "gloo"});
  EXPECT_EQ(RunProcess(args, {{"PETNAME_BACKEND", "mpi"}}, &out), 0) << out;
}

// Built only where it applies (a build without NCCL), instead of skipped in the others.
#ifndef PETNAME_TEST_HAVE_NCCL
TEST(BackendTest, PetnameBackendThisBuildLacksIsOneUsageLine) {
  std::string out;
  EXPECT_EQ(RunProcess(Args(), {{"PETNAME_BACKEND", "nccl"}}, &out), 2) << out;
  EXPECT_NE(out.find("petname: error: PETNAME_BACKEND=nccl: this build has no NCCL"),
            std::string::npos)
      << out;
}
#endif

}  // namespace
}  // namespace petname::testing
