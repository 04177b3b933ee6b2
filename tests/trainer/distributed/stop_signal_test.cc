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

}  // namespace
}  // namespace petname::dist
