#include "operator/jobs/pod_failure.h"

#include <gtest/gtest.h>

namespace petname::controller {
namespace {

TEST(PodFailureTest, FailureLineIsTheLastErrorLineOfTheLogTail) {
  EXPECT_EQ(FailureLine("petname: note\npetname: error: x\n"), "petname: error: x");
  EXPECT_EQ(FailureLine("[rank 1] petname: error: y\r\nlauncher: rank 1 exited\n  \n"),
            "[rank 1] petname: error: y");
  EXPECT_EQ(FailureLine("Traceback\nsegfault at 0x0\n\n"), "segfault at 0x0");
  EXPECT_EQ(FailureLine(""), "");
}

TEST(PodFailureTest, UnusableCheckpointDirIsNeverRetriedUnlessADisruption) {
  RankFailure f;
  f.exit_code = 73;
  EXPECT_TRUE(CheckpointDirUnusable(f));
  for (const char* policy : {"OnFailure", "ExitCode", "Never"}) {
    EXPECT_FALSE(Retryable(policy, f)) << policy;
  }
  f.disruption = true;  // e.g. evicted while it exited: the exit code does not decide
  EXPECT_FALSE(CheckpointDirUnusable(f));
  EXPECT_TRUE(Retryable("OnFailure", f));
  f = RankFailure();
  f.exit_code = 1;
  EXPECT_FALSE(CheckpointDirUnusable(f));
  EXPECT_TRUE(Retryable("OnFailure", f));
}

}  // namespace
}  // namespace petname::controller
