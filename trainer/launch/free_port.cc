#include "trainer/launch/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>

namespace petname::launch {
namespace {

constexpr int kLowest = 20000;
constexpr int kEnough = 1000;
constexpr int kTries = 200;

// The kernel's ephemeral range; Linux's default when it cannot be read.
PortRange EphemeralRange() {
  PortRange r{32768, 60999};
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  int last = 0;
  if (in >> first >> last && first > 0 && first <= last) r = {first, last};
  return r;
}

bool Bindable(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

}  // namespace

PortRange PortsOutsideEphemeral(int ephemeral_first, int ephemeral_last) {
  if (ephemeral_first - kLowest >= kEnough) return {kLowest, ephemeral_first - 1};
  return {ephemeral_last + 1, 65535};
}

int FreeTcpPort() {
  const PortRange eph = EphemeralRange();
  const PortRange range = PortsOutsideEphemeral(eph.first, eph.last);
  if (range.first > range.last) return 0;
  std::mt19937 pick(std::random_device{}());
  std::uniform_int_distribution<int> port(range.first, range.last);
  for (int i = 0; i < kTries; ++i) {
    const int p = port(pick);
    if (Bindable(p)) return p;
  }
  return 0;
}

}  // namespace petname::launch
