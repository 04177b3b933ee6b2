#include "common/http/server.h"

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "common/http/bounded_stream.h"

namespace petname {
namespace {

using Clock = std::chrono::steady_clock;

void CloseConnection(int fd) {
  shutdown(fd, SHUT_RDWR);
  close(fd);
}

// cpp-httplib's request parsing, routing and response writing, run by a worker on a request
// whose head the accepting thread has already read (one request per connection).
class Responder : public httplib::Server {
 public:
  explicit Responder(const HttpServerLimits& limits) : limits_(limits) {}
  ~Responder() override {
    if (svr_sock_ != INVALID_SOCKET) close(svr_sock_);
  }
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // The socket bound by bind_to_port(), made non-blocking, with a backlog of `max_connections`
  // (cpp-httplib listens with 5); listen() again on a listening socket only changes that.
  int PrepareListening() {
    ::listen(svr_sock_, static_cast<int>(limits_.max_connections));
    fcntl(svr_sock_, F_SETFL, fcntl(svr_sock_, F_GETFL) | O_NONBLOCK);
    return svr_sock_;
  }

  // Answers the request that starts with `head` (received until `deadline`) and closes `fd`.
  void Answer(int fd, std::string head, Clock::time_point deadline) {
    StreamBounds bounds;
    bounds.read_deadline = deadline;
    bounds.write_deadline = deadline + limits_.response_timeout;
    bounds.head_limit = limits_.max_head_bytes;
    bounds.body_limit = 0;
    BoundedStream stream(fd, bounds, std::move(head));
    bool closed = true;
    process_request(stream, /*close_connection=*/true, closed, nullptr);
    CloseConnection(fd);
  }

 private:
  const HttpServerLimits limits_;
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

// A connection whose request head is still arriving.
struct Arriving {
  int fd = -1;
  Clock::time_point deadline;
  std::string head;
};

}  // namespace

// The accepting thread's state: it reads request heads itself, all connections at once with
// poll(), and hands only complete ones (or ones over the head limit) to the workers.
struct HttpServer::Loop {
  Loop(std::unique_ptr<Responder> r, const HttpServerLimits& l)
      : responder(std::move(r)), limits(l), workers(static_cast<size_t>(l.workers)) {}

  void Run();
  // Reads what `c` has sent; true when it is done arriving (handed on or closed).
  bool Receive(Arriving& c);

  std::unique_ptr<Responder> responder;
  const HttpServerLimits limits;
  int listening = -1;
  int wake[2] = {-1, -1};       // a byte on wake[1] ends Run()
  std::atomic<size_t> open{0};  // connections accepted and not yet closed
  httplib::ThreadPool workers;
};

bool HttpServer::Loop::Receive(Arriving& c) {
  char buf[4096];
  const ssize_t got = recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  if (got <= 0) {
    CloseConnection(c.fd);
    --open;
    return true;
  }
  c.head.append(buf, static_cast<size_t>(got));
  if (c.head.find("\r\n\r\n") == std::string::npos && c.head.size() <= limits.max_head_bytes) {
    return false;
  }
  workers.enqueue([this, fd = c.fd, head = std::move(c.head), deadline = c.deadline]() mutable {
    responder->Answer(fd, std::move(head), deadline);
    --open;
  });
  return true;
}

void HttpServer::Loop::Run() {
  std::vector<Arriving> arriving;
  std::vector<pollfd> fds;
  for (;;) {
    const bool accepting = open < limits.max_connections;
    fds.assign({pollfd{wake[0], POLLIN, 0}, pollfd{accepting ? listening : -1, POLLIN, 0}});
    auto next_deadline = Clock::time_point::max();
    for (const Arriving& c : arriving) {
      fds.push_back(pollfd{c.fd, POLLIN, 0});
      next_deadline = std::min(next_deadline, c.deadline);
    }
    int wait_ms = -1;
    if (!arriving.empty()) {
      wait_ms = static_cast<int>(std::max<int64_t>(
          0, std::chrono::ceil<std::chrono::milliseconds>(next_deadline - Clock::now()).count()));
    } else if (!accepting) {
      wait_ms = 10;  // until a worker closes a connection
    }
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) break;
    const auto now = Clock::now();
    size_t kept = 0;
    for (size_t i = 0; i < arriving.size(); ++i) {
      Arriving& c = arriving[i];
      bool done = fds[i + 2].revents != 0 && Receive(c);
      if (!done && now >= c.deadline) {  // too slow: no answer, the connection is closed
        CloseConnection(c.fd);
        --open;
        done = true;
      }
      if (done) continue;
      if (kept != i) arriving[kept] = std::move(c);
      ++kept;
    }
    arriving.resize(kept);
    if (fds[1].revents != 0) {
      const int fd = accept4(listening, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        ++open;
        arriving.push_back({fd, now + limits.request_timeout, {}});
      } else if (errno == EMFILE || errno == ENFILE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
  for (const Arriving& c : arriving) CloseConnection(c.fd);
  workers.shutdown();
}

Status HttpServer::Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                         std::unique_ptr<HttpServer>* out, const HttpServerLimits& limits) {
  const std::string where = host + ":" + std::to_string(port);
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("cannot listen on " + where + ": not a port");
  }
  if (limits.workers < 1 || limits.max_connections < 1) {
    return Status::InvalidArgument("cannot listen on " + where + ": no worker or connection");
  }
  auto server = std::make_unique<Responder>(limits);
  server->set_socket_options(ExclusivePort);
  server->set_payload_max_length(0);
  server->set_pre_routing_handler(
      [max_headers = limits.max_headers](const httplib::Request& req, httplib::Response& res) {
        return Screen(req, res, max_headers);
      });
  // Every path goes to one handler that looks it up exactly (cpp-httplib's patterns are regexes).
  server->Get(".*",
              [routes = std::move(routes)](const httplib::Request& req, httplib::Response& res) {
                auto it = routes.find(req.path);
                if (it == routes.end()) {
                  Refuse(res, 404, "not found\n");
                  return;
                }
                HttpResponse r = it->second();
                res.status = r.code;
                res.set_content(r.body, r.content_type.c_str());
              });
  int bound = -1;
  errno = 0;
  if (port == 0) {
    bound = server->bind_to_any_port(host);
  } else if (server->bind_to_port(host, port)) {
    bound = port;
  }
  if (bound < 0) {
    return Status::Unavailable("cannot listen on " + where +
                               (errno != 0 ? ": " + std::string(std::strerror(errno)) : ""));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    return Status::Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  }
  auto loop = std::make_unique<Loop>(std::move(server), limits);
  loop->wake[0] = wake[0];
  loop->wake[1] = wake[1];
  loop->listening = loop->responder->PrepareListening();
  out->reset(new HttpServer(std::move(loop), bound));
  return Status::Ok();
}

HttpServer::HttpServer(std::unique_ptr<Loop> loop, int port)
    : loop_(std::move(loop)), port_(port), thread_([this] { loop_->Run(); }) {}

HttpServer::~HttpServer() {
  const char stop = 0;
  while (write(loop_->wake[1], &stop, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  close(loop_->wake[0]);
  close(loop_->wake[1]);
}

}  // namespace petname
