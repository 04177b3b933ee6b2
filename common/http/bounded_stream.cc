#include "common/http/bounded_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace petname {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kMaxPollMs = 1000000;  // poll's int timeout; longer waits loop

}  // namespace

std::string SocketAddress(const sockaddr_storage& addr, int* port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    *port = ntohs(v4->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    *port = ntohs(v6->sin6_port);
  }
  return text;
}

BoundedStream::BoundedStream(int sock, const StreamBounds& bounds, std::string received)
    : sock_(sock), bounds_(bounds), received_(std::move(received)) {}

bool BoundedStream::Wait(short events, Clock::time_point deadline) const {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      expired_ = true;
      return false;
    }
    pollfd p{sock_, events, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, kMaxPollMs)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // the recv or send that follows reports it
  }
}

bool BoundedStream::is_readable() const {
  return received_read_ < received_.size() || begin_ < end_ || Wait(POLLIN, bounds_.read_deadline);
}

bool BoundedStream::is_writable() const { return Wait(POLLOUT, bounds_.write_deadline); }

size_t BoundedStream::Admit(const char* data, size_t available) {
  size_t n = 0;
  while (n < available && head_end_matched_ < 4) {
    if (head_read_ == bounds_.head_limit) return n;
    const char c = data[n];
    const char expected = head_end_matched_ % 2 == 0 ? '\r' : '\n';
    head_end_matched_ = c == expected ? head_end_matched_ + 1 : (c == '\r' ? 1 : 0);
    ++head_read_;
    ++n;
  }
  const size_t body = std::min(available - n, bounds_.body_limit - body_read_);
  body_read_ += body;
  return n + body;
}

ssize_t BoundedStream::read(char* ptr, size_t size) {
  const bool from_received = received_read_ < received_.size();
  while (!from_received && begin_ == end_) {
    if (over_limit_ || !Wait(POLLIN, bounds_.read_deadline)) return -1;
    const ssize_t got = recv(sock_, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
    if (got == 0) return 0;
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return -1;
    }
    begin_ = 0;
    end_ = static_cast<size_t>(got);
  }
  const char* data = from_received ? received_.data() + received_read_ : buffer_.data() + begin_;
  const size_t available = from_received ? received_.size() - received_read_ : end_ - begin_;
  const size_t n = Admit(data, std::min(size, available));
  if (n == 0) {
    over_limit_ = true;
    return -1;
  }
  std::memcpy(ptr, data, n);
  (from_received ? received_read_ : begin_) += n;
  return static_cast<ssize_t>(n);
}

ssize_t BoundedStream::write(const char* ptr, size_t size) {
  for (;;) {
    if (!Wait(POLLOUT, bounds_.write_deadline)) return -1;
    const ssize_t sent = send(sock_, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return sent;
  }
}

void BoundedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    ip = SocketAddress(addr, &port);
  }
}

void BoundedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    ip = SocketAddress(addr, &port);
  }
}

}  // namespace petname
