#include "common/http/responder.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "common/http/request_head.h"

namespace petname {
namespace {

// A cpp-httplib Stream over a received head (at most `limit` bytes of it are read) that keeps
// what is written.
class HeadStream : public httplib::Stream {
 public:
  HeadStream(const std::string& head, size_t limit, std::string ip, int port)
      : head_(head), limit_(std::min(limit, head.size())), ip_(std::move(ip)), port_(port) {}

  bool is_readable() const override { return read_ < limit_; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, limit_ - read_);
    if (n == 0) return -1;
    std::memcpy(ptr, head_.data() + read_, n);
    read_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    written_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = ip_;
    port = port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip.clear();
    port = 0;
  }
  socket_t socket() const override { return INVALID_SOCKET; }

  std::string& written() { return written_; }

 private:
  const std::string& head_;
  const size_t limit_;
  size_t read_ = 0;
  const std::string ip_;
  const int port_;
  std::string written_;
};

void ExclusivePort(socket_t sock) {
  const int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

void Refuse(httplib::Response& res, int code, const char* body) {
  res.status = code;
  res.set_content(body, "text/plain; charset=utf-8");
}

// Refuses what a GET-only server has no use for before anything else of the request is read.
httplib::Server::HandlerResponse Screen(const httplib::Request& req, httplib::Response& res,
                                        size_t max_headers) {
  using Handled = httplib::Server::HandlerResponse;
  if (req.method != "GET" && req.method != "HEAD") {
    res.set_header("Allow", "GET, HEAD");
    Refuse(res, 405, "method not allowed\n");
    return Handled::Handled;
  }
  const bool body =
      req.has_header("Transfer-Encoding") ||
      (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
  if (body) {
    Refuse(res, 413, "a request body is not accepted\n");
    return Handled::Handled;
  }
  // cpp-httplib adds REMOTE_ADDR, REMOTE_PORT, LOCAL_ADDR and LOCAL_PORT to the client's.
  if (req.headers.size() > max_headers + 4) {
    Refuse(res, 431, "too many request headers\n");
    return Handled::Handled;
  }
  return Handled::Unhandled;
}

}  // namespace

Responder::Responder(std::map<std::string, HttpServer::Handler> routes,
                     const HttpServerLimits& limits)
    : limits_(limits) {
  set_socket_options(ExclusivePort);
  set_payload_max_length(0);
  set_pre_routing_handler(
      [max_headers = limits.max_headers](const httplib::Request& req, httplib::Response& res) {
        return Screen(req, res, max_headers);
      });
  // Every path goes to one handler that looks it up exactly (cpp-httplib's patterns are regexes).
  Get(".*", [routes = std::move(routes)](const httplib::Request& req, httplib::Response& res) {
    auto it = routes.find(req.path);
    if (it == routes.end()) {
      Refuse(res, 404, "not found\n");
      return;
    }
    HttpResponse r = it->second();
    res.status = r.code;
    res.set_content(r.body, r.content_type.c_str());
  });
}

Responder::~Responder() {
  if (svr_sock_ != INVALID_SOCKET) close(svr_sock_);
}

int Responder::Bind(const std::string& host, int port) {
  if (port == 0) return bind_to_any_port(host);
  return bind_to_port(host, port) ? port : -1;
}

// listen() again on a listening socket only changes its backlog (cpp-httplib listens with 5).
int Responder::PrepareListening() {
  ::listen(svr_sock_, static_cast<int>(limits_.max_connections));
  fcntl(svr_sock_, F_SETFL, fcntl(svr_sock_, F_GETFL) | O_NONBLOCK);
  return svr_sock_;
}

std::string Responder::Answer(const std::string& head, const std::string& peer_ip, int peer_port) {
  const std::string filtered = WithoutRangeHeaders(head);
  HeadStream stream(filtered, limits_.max_head_bytes, peer_ip, peer_port);
  bool closed = true;
  process_request(stream, /*close_connection=*/true, closed, nullptr);
  return std::move(stream.written());
}

}  // namespace petname
