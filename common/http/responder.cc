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

// A cpp-httplib Stream over a request head that keeps what is written.
class HeadStream : public httplib::Stream {
 public:
  HeadStream(const std::string& head, std::string ip, int port)
      : head_(head), ip_(std::move(ip)), port_(port) {}

  bool is_readable() const override { return read_ < head_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, head_.size() - read_);
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

const char* ReasonPhrase(int status) {
  switch (status) {
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Bad Request";
  }
}

// The whole answer to a head the screen refused; it closes the connection.
std::string RefusalAnswer(const HeadVerdict& verdict) {
  const std::string body = verdict.reason + "\n";
  std::string answer =
      "HTTP/1.1 " + std::to_string(verdict.status) + " " + ReasonPhrase(verdict.status) + "\r\n";
  if (verdict.status == 405) answer += "Allow: GET, HEAD\r\n";
  answer += "Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n";
  if (!verdict.head) answer += body;
  return answer;
}

}  // namespace

Responder::Responder(std::map<std::string, HttpServer::Handler> routes,
                     const HttpServerLimits& limits)
    : limits_(limits) {
  set_socket_options(ExclusivePort);
  set_payload_max_length(0);
  // Every path goes to one handler that looks it up exactly (cpp-httplib's patterns are regexes).
  Get(".*", [routes = std::move(routes), max_body = limits.max_body_bytes](
                const httplib::Request& req, httplib::Response& res) {
    auto it = routes.find(req.path);
    if (it == routes.end()) {
      Refuse(res, 404, "not found\n");
      return;
    }
    HttpResponse r = it->second();
    if (r.body.size() > max_body) {
      Refuse(res, 500, "the answer is over the server's limit\n");
      return;
    }
    res.status = r.code;
    res.body = std::move(r.body);
    res.set_header("Content-Type", r.content_type);
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
  const HeadVerdict verdict = ScreenRequestHead(head, limits_.max_head_bytes, limits_.max_headers);
  if (verdict.status != 0) return RefusalAnswer(verdict);
  HeadStream stream(verdict.forwarded, peer_ip, peer_port);
  bool closed = true;
  process_request(stream, /*close_connection=*/true, closed, nullptr);
  return std::move(stream.written());
}

}  // namespace petname
