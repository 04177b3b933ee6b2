// Raw client sockets (tests only) for asking an HttpServer as a hostile client would: from a
// chosen loopback address (all of 127.0.0.0/8 reaches the loopback interface, so each address
// is a peer of its own), without reading, without sending.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace petname::testing {

// A socket connected to 127.0.0.1:port from address `from` (any port). Reads on it give up
// after a minute, so that a test that fails does not hang.
inline int Connect(int port, const std::string& from = "127.0.0.1") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, from.c_str(), &local.sin_addr);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)), 0) << from;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  timeval tv{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

inline bool SendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Everything the server sends on `fd` until it closes (or resets) the connection.
inline std::string ReadAll(int fd) {
  std::string answer;
  char buf[65536];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) answer.append(buf, n);
  return answer;
}

// Sends `request` from `from` and reads the answer until the server closes; "" when it closed
// or reset the connection unanswered.
inline std::string Exchange(int port, const std::string& request,
                            const std::string& from = "127.0.0.1") {
  const int fd = Connect(port, from);
  SendAll(fd, request);
  std::string answer = ReadAll(fd);
  close(fd);
  return answer;
}

// The body of an HTTP answer: what follows its head.
inline std::string Body(const std::string& answer) {
  const size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

}  // namespace petname::testing
