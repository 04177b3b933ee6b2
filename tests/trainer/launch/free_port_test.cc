// The launcher's rendezvous port: picked outside the kernel's ephemeral range, so that no
// outgoing connection can take it between the pick and rank 0's bind.
#include "trainer/launch/free_port.h"

#include <gtest/gtest.h>

#include <fstream>

namespace petname::launch {
namespace {

TEST(FreePortTest, BelowTheEphemeralRangeWhenThatLeavesEnoughPorts) {
  const PortRange r = PortsOutsideEphemeral(32768, 60999);  // Linux's default
  EXPECT_EQ(r.first, 20000);
  EXPECT_EQ(r.last, 32767);
}

TEST(FreePortTest, AboveTheEphemeralRangeWhenItStartsLow) {
  PortRange r = PortsOutsideEphemeral(1024, 50000);
  EXPECT_EQ(r.first, 50001);
  EXPECT_EQ(r.last, 65535);
  r = PortsOutsideEphemeral(20999, 40000);  // 999 ports below: not enough
  EXPECT_EQ(r.first, 40001);
  r = PortsOutsideEphemeral(21000, 40000);  // exactly 1000 below
  EXPECT_EQ(r.first, 20000);
  EXPECT_EQ(r.last, 20999);
}

TEST(FreePortTest, AnEphemeralRangeToTheTopLeavesNothingAbove) {
  const PortRange r = PortsOutsideEphemeral(1024, 65535);
  EXPECT_GT(r.first, r.last);
}

TEST(FreePortTest, TheMachinesPortIsOutsideItsEphemeralRange) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  int last = 0;
  ASSERT_TRUE(in >> first >> last);
  for (int i = 0; i < 20; ++i) {
    const int port = FreeTcpPort();
    ASSERT_GT(port, 0);
    EXPECT_TRUE(port < first || port > last) << port << " in " << first << "-" << last;
  }
}

}  // namespace
}  // namespace petname::launch
