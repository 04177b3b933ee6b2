// BoundedStream: a cpp-httplib Stream over a connected TCP socket that bounds an HTTP exchange
// with a peer it does not trust, in time as a whole and in bytes. cpp-httplib's own SocketStream
// times out each read on its own, so a peer that sends a byte now and then holds it for ever,
// and its line reader keeps whatever a peer sends until a newline.
//
// Reads wait at most until `read_deadline` and writes at most until `write_deadline`, however
// the bytes trickle in or out; past its deadline a call fails (-1) and expired() says so. Reads
// hand out at most `head_limit` bytes up to and including the blank line that ends an HTTP head
// ("\r\n\r\n"), then at most `body_limit` bytes after it (as sent: chunk framing included);
// a read past a limit fails and over_limit() says so. `received`, bytes already taken from the
// socket, are read first and count like the others. The socket is neither owned nor closed.
#pragma once

#include <httplib.h>
#include <sys/socket.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <string>

namespace petname {

// The numeric IPv4 or IPv6 address of `addr` (empty for another family), its port in *port.
std::string SocketAddress(const sockaddr_storage& addr, int* port);

struct StreamBounds {
  std::chrono::steady_clock::time_point read_deadline;
  std::chrono::steady_clock::time_point write_deadline;
  size_t head_limit = 0;
  size_t body_limit = 0;
};

class BoundedStream : public httplib::Stream {
 public:
  BoundedStream(int sock, const StreamBounds& bounds, std::string received = {});

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return sock_; }

  bool expired() const { return expired_; }
  bool over_limit() const { return over_limit_; }
  // Bytes handed out by read(), head and body.
  size_t bytes_read() const { return head_read_ + body_read_; }

 private:
  // Waits for `events` on the socket until `deadline`; false (expired_ set) when it passes.
  bool Wait(short events, std::chrono::steady_clock::time_point deadline) const;
  // How many of the `available` bytes at `data` the limits let out (counting them).
  size_t Admit(const char* data, size_t available);

  int sock_;
  StreamBounds bounds_;
  std::string received_;
  size_t received_read_ = 0;
  std::array<char, 4096> buffer_{};
  size_t begin_ = 0;
  size_t end_ = 0;
  size_t head_read_ = 0;
  size_t body_read_ = 0;
  int head_end_matched_ = 0;  // how much of "\r\n\r\n" the last bytes matched; 4: head over
  mutable bool expired_ = false;
  bool over_limit_ = false;
};

}  // namespace petname
