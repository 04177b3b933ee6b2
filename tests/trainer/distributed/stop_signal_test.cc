#include "trainer/distributed/stop_signal.h"

#include <gtest/gtest.h>

#include <csignal>

namespace petname::dist {
namespace {

TEST(StopSignalTest, SigtermRaisesTheFlagOnly) {
  InstallStopHandler();
  ClearStopRequest();
  EXPECT_FALSE(StopRequested());
  std::raise(SIGTERM);
  EXPECT_TRUE(StopRequested());
  ClearStopRequest();
  EXPECT_FALSE(StopRequested());
  EXPECT_EQ(kExitPreempted, 143);
}

// Before training starts there is nothing to save: SIGTERM ends the process at once.
TEST(StopSignalTest, BeforeTrainingSigtermExits143WithOneLine) {
  EXPECT_EXIT(
      {
        InstallExitOnStop();
        std::raise(SIGTERM);
      },
      ::testing::ExitedWithCode(kExitPreempted),
      "^petname: error: stopped by SIGTERM before training started\n$");
}

}  // namespace
}  // namespace petname::dist
