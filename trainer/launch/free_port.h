// A TCP port for rank 0's rendezvous (TCPStore) when the launcher starts the ranks of one node.
//
// The port is taken from outside the kernel's ephemeral range (net.ipv4.ip_local_port_range):
// between the pick and rank 0's bind, the local end of an outgoing connection (the other ranks,
// any client on the machine) can only get an ephemeral port, so it cannot take this one. The
// range below the ephemeral one is used when it holds enough ports, else the one above.
#pragma once

namespace petname::launch {

struct PortRange {
  int first = 0;  // inclusive
  int last = 0;   // inclusive
};

// The ports to pick from for an ephemeral range [ephemeral_first, ephemeral_last]: from 20000
// up to below it when that leaves at least 1000 ports, otherwise above it up to 65535. Pure.
PortRange PortsOutsideEphemeral(int ephemeral_first, int ephemeral_last);

// A port of PortsOutsideEphemeral(this machine's range) that nothing holds on 127.0.0.1 now
// (checked by binding it), or 0 when none was found in a bounded number of tries.
int FreeTcpPort();

}  // namespace petname::launch
