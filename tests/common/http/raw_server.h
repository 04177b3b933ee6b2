// RawServer (tests only): a TCP server on 127.0.0.1 that runs `serve(fd)` on a thread of its own
// for every connection, so a test can answer as a hostile or broken HTTP server would: slowly,
// endlessly, malformed. It counts the bytes serve() sent.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace petname::testing {

class RawServer {
 public:
  // serve(fd, server) answers one connection; it should return once Send() fails or stopping().
  using Serve = std::function<void(int fd, RawServer& server)>;

  explicit RawServer(Serve serve) : serve_(std::move(serve)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        listen(listen_fd_, 16) == 0 &&
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);  // stays 0, which no client reaches, when it failed
    }
    accept_thread_ = std::thread([this] { Accept(); });
  }

  ~RawServer() {
    stopping_ = true;
    accept_thread_.join();
    for (std::thread& t : connections_) t.join();
    close(listen_fd_);
  }

  RawServer(const RawServer&) = delete;
  RawServer& operator=(const RawServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/metrics") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  bool stopping() const { return stopping_; }
  size_t bytes_sent() const { return sent_; }

  // Sends all of `data`; false once the peer has gone (or the server stops).
  bool Send(int fd, const std::string& data) {
    size_t off = 0;
    while (off < data.size() && !stopping_) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
      sent_ += static_cast<size_t>(n);
    }
    return off == data.size();
  }

  // Reads the request head (up to its blank line); false when the peer closed first.
  static bool ReadHead(int fd) {
    std::string head;
    char c;
    while (head.size() < 65536 && head.find("\r\n\r\n") == std::string::npos) {
      if (recv(fd, &c, 1, 0) != 1) return false;
      head += c;
    }
    return true;
  }

 private:
  void Accept() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      connections_.emplace_back([this, fd] {
        serve_(fd, *this);
        close(fd);
      });
    }
  }

  Serve serve_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> sent_{0};
  std::thread accept_thread_;
  std::vector<std::thread> connections_;  // only touched by the accept thread, then joined
};

}  // namespace petname::testing
