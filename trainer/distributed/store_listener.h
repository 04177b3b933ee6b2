// The rendezvous store server's sockets (store_server.h): the port it listens on, on every
// interface, and the names of the peers that connect. Plain POSIX sockets, no LibTorch.
#pragma once

#include <sys/socket.h>

#include <string>

namespace petname::dist::store {

// "ADDRESS:PORT" of a peer ("[ADDRESS]:PORT" for IPv6; IPv4 mapped into IPv6 as plain IPv4), and
// the address alone in *ip.
std::string PeerName(const sockaddr_storage& addr, std::string* ip);

// A listening socket on every interface (IPv6 with IPv4 mapped, else IPv4) at `port`; -1 with
// errno set when it cannot be bound.
int Listen(int port);

}  // namespace petname::dist::store
