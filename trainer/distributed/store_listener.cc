#include "trainer/distributed/store_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>

namespace petname::dist::store {

std::string PeerName(const sockaddr_storage& addr, std::string* ip) {
  char text[INET6_ADDRSTRLEN] = {};
  int port = 0;
  bool v6 = false;
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
      inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], text, sizeof(text));
    } else {
      inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof(text));
      v6 = true;
    }
    port = ntohs(a6->sin6_port);
  }
  *ip = text;
  return (v6 ? "[" + *ip + "]" : *ip) + ":" + std::to_string(port);
}

int Listen(int port) {
  for (int family : {AF_INET6, AF_INET}) {
    const int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int on = 1, off = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_storage addr{};
    socklen_t len = 0;
    if (family == AF_INET6) {
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
      auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
      a6->sin6_family = AF_INET6;
      a6->sin6_addr = in6addr_any;
      a6->sin6_port = htons(static_cast<uint16_t>(port));
      len = sizeof(sockaddr_in6);
    } else {
      auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
      a4->sin_family = AF_INET;
      a4->sin_addr.s_addr = htonl(INADDR_ANY);
      a4->sin_port = htons(static_cast<uint16_t>(port));
      len = sizeof(sockaddr_in);
    }
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0 && listen(fd, 256) == 0) return fd;
    const int err = errno;
    close(fd);
    errno = err;
    // Another error than a missing IPv6 (the port is taken, say) is the answer.
    if (family == AF_INET6 && err != EAFNOSUPPORT && err != EADDRNOTAVAIL) return -1;
  }
  return -1;
}

}  // namespace petname::dist::store
