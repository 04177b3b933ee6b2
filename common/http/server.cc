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
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/http/bounded_stream.h"
#include "common/http/request_head.h"
#include "common/http/responder.h"

namespace petname {
namespace {

using Clock = std::chrono::steady_clock;

// A connection the accepting thread holds: its request head arriving, or its answer leaving.
struct Connection {
  int fd = -1;
  std::string ip;  // the peer's address, the key of the per-peer count
  int port = 0;
  bool answering = false;      // `data` is the answer, `written` bytes of it sent
  Clock::time_point deadline;  // for the head to arrive, or the answer to be taken
  std::string data;
  size_t written = 0;
};

bool HasArriving(const std::vector<Connection>& polled) {
  return std::any_of(polled.begin(), polled.end(),
                     [](const Connection& c) { return !c.answering; });
}

}  // namespace

// The accepting thread's state. It alone touches the sockets: it reads request heads and
// writes answers, all connections at once with poll(); the workers only render answers.
struct HttpServer::Loop {
  Loop(std::unique_ptr<Responder> r, const HttpServerLimits& l)
      : responder(std::move(r)),
        limits(l),
        probe_paths(l.probe_paths.begin(), l.probe_paths.end()),
        workers(static_cast<size_t>(l.workers)),
        probe_worker(1) {}

  void Run();
  // Accepts one connection; false when none was waiting (or accept failed).
  bool Accept(std::vector<Connection>* polled, Clock::time_point now);
  // Reads what `c` has sent; true when it is done arriving (handed to a worker, or closed).
  bool Receive(Connection& c);
  // Sends what `c` can take of its answer; true when it is done (all sent, or failed).
  bool Send(Connection& c);
  // Closes `c`; `abort` resets it (RST), dropping what the client has not taken yet.
  void Close(const Connection& c, bool abort = false);
  // Called by a worker when `c`'s answer is ready.
  void Answered(Connection c);

  std::unique_ptr<Responder> responder;
  const HttpServerLimits limits;
  const std::set<std::string> probe_paths;
  int listening = -1;
  int wake[2] = {-1, -1};  // a byte on wake[1]: answers are ready, or `stopping`
  std::atomic<bool> stopping{false};
  size_t open = 0;                         // connections accepted and not yet closed
  std::map<std::string, size_t> per_peer;  // of them, by peer address
  std::mutex answered_mutex;
  std::vector<Connection> answered;  // rendered by the workers, not yet polled
  httplib::ThreadPool workers;
  httplib::ThreadPool probe_worker;
};

void HttpServer::Loop::Close(const Connection& c, bool abort) {
  if (abort) {
    const linger reset{1, 0};
    setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  } else {
    shutdown(c.fd, SHUT_RDWR);
  }
  close(c.fd);
  --open;
  auto it = per_peer.find(c.ip);
  if (--it->second == 0) per_peer.erase(it);
}

void HttpServer::Loop::Answered(Connection c) {
  {
    std::lock_guard<std::mutex> lock(answered_mutex);
    answered.push_back(std::move(c));
  }
  const char ready = 1;
  while (write(wake[1], &ready, 1) < 0 && errno == EINTR) {
  }
}

bool HttpServer::Loop::Receive(Connection& c) {
  char buf[4096];
  const ssize_t got = recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  if (got <= 0) {
    Close(c);
    return true;
  }
  c.data.append(buf, static_cast<size_t>(got));
  const size_t length = RequestHeadLength(c.data);
  if (length == 0 && c.data.size() <= limits.max_head_bytes) return false;
  if (length != 0) c.data.resize(length);  // a body is refused unread
  const bool probe = probe_paths.count(RequestPath(c.data)) > 0;
  (probe ? probe_worker : workers).enqueue([this, c = std::move(c)]() mutable {
    c.data = responder->Answer(c.data, c.ip, c.port);
    Answered(std::move(c));
  });
  return true;
}

bool HttpServer::Loop::Send(Connection& c) {
  const ssize_t sent =
      send(c.fd, c.data.data() + c.written, c.data.size() - c.written, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  if (sent > 0) c.written += static_cast<size_t>(sent);
  if (sent > 0 && c.written < c.data.size()) return false;
  Close(c);
  return true;
}

bool HttpServer::Loop::Accept(std::vector<Connection>* polled, Clock::time_point now) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int fd =
      accept4(listening, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EMFILE || errno == ENFILE) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  Connection c;
  c.fd = fd;
  c.ip = SocketAddress(addr, &c.port);
  c.deadline = now + limits.request_timeout;
  ++open;
  ++per_peer[c.ip];
  if (per_peer[c.ip] > limits.max_connections_per_peer) {  // closed unanswered
    Close(c);
    return true;
  }
  if (open > limits.max_connections) {  // the oldest connection still arriving makes room
    auto oldest = std::find_if(polled->begin(), polled->end(),
                               [](const Connection& p) { return !p.answering; });
    Close(*oldest);
    polled->erase(oldest);
  }
  // A client's request has usually arrived by now: taken at once, it cannot be made room for.
  if (!Receive(c)) polled->push_back(std::move(c));
  return true;
}

void HttpServer::Loop::Run() {
  std::vector<Connection> polled;  // in the order they were accepted, then answered
  std::vector<pollfd> fds;
  while (!stopping) {
    const bool accepting = open < limits.max_connections || HasArriving(polled);
    fds.assign({pollfd{wake[0], POLLIN, 0}, pollfd{accepting ? listening : -1, POLLIN, 0}});
    auto next_deadline = Clock::time_point::max();
    for (const Connection& c : polled) {
      fds.push_back(pollfd{c.fd, static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
      next_deadline = std::min(next_deadline, c.deadline);
    }
    int wait_ms = -1;
    if (!polled.empty()) {
      wait_ms = static_cast<int>(std::max<int64_t>(
          0, std::chrono::ceil<std::chrono::milliseconds>(next_deadline - Clock::now()).count()));
    }
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) break;
    const auto now = Clock::now();
    size_t kept = 0;
    for (size_t i = 0; i < polled.size(); ++i) {
      Connection& c = polled[i];
      bool done = fds[i + 2].revents != 0 && (c.answering ? Send(c) : Receive(c));
      if (!done && now >= c.deadline) {  // too slow: reset, unanswered or cut off
        Close(c, /*abort=*/true);
        done = true;
      }
      if (done) continue;
      if (kept != i) polled[kept] = std::move(c);
      ++kept;
    }
    polled.resize(kept);
    if (fds[0].revents != 0) {
      char drained[64];
      while (read(wake[0], drained, sizeof(drained)) == static_cast<ssize_t>(sizeof(drained))) {
      }
      std::lock_guard<std::mutex> lock(answered_mutex);
      for (Connection& c : answered) {
        c.answering = true;
        c.written = 0;
        c.deadline = now + limits.response_timeout;
        polled.push_back(std::move(c));
      }
      answered.clear();
    }
    // All that are waiting, so that the listen backlog does not overflow while this thread lags.
    while (fds[1].revents != 0 && (open < limits.max_connections || HasArriving(polled)) &&
           Accept(&polled, now)) {
    }
  }
  for (const Connection& c : polled) Close(c);
  workers.shutdown();
  probe_worker.shutdown();
  for (const Connection& c : answered) Close(c);
}

Status HttpServer::Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                         std::unique_ptr<HttpServer>* out, const HttpServerLimits& limits) {
  const std::string where = host + ":" + std::to_string(port);
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("cannot listen on " + where + ": not a port");
  }
  if (limits.workers < 1 || limits.max_connections < 1 || limits.max_connections_per_peer < 1) {
    return Status::InvalidArgument("cannot listen on " + where + ": no worker or connection");
  }
  auto responder = std::make_unique<Responder>(std::move(routes), limits);
  errno = 0;
  const int bound = responder->Bind(host, port);
  if (bound < 0) {
    return Status::Unavailable("cannot listen on " + where +
                               (errno != 0 ? ": " + std::string(std::strerror(errno)) : ""));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  }
  auto loop = std::make_unique<Loop>(std::move(responder), limits);
  loop->wake[0] = wake[0];
  loop->wake[1] = wake[1];
  loop->listening = loop->responder->PrepareListening();
  out->reset(new HttpServer(std::move(loop), bound));
  return Status::Ok();
}

HttpServer::HttpServer(std::unique_ptr<Loop> loop, int port)
    : loop_(std::move(loop)), port_(port), thread_([this] { loop_->Run(); }) {}

HttpServer::~HttpServer() {
  loop_->stopping = true;
  const char stop = 0;
  while (write(loop_->wake[1], &stop, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  close(loop_->wake[0]);
  close(loop_->wake[1]);
}

}  // namespace petname
