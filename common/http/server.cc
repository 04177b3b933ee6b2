#include "common/http/server.h"

#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "common/http/bounded_stream.h"

namespace petname {
namespace {

// A fixed set of worker std::threads; enqueue() waits while `max_waiting` tasks wait already,
// which stops the accepting thread (further clients wait in the kernel's listen backlog).
class WorkerPool : public httplib::TaskQueue {
 public:
  WorkerPool(int workers, size_t max_waiting) : max_waiting_(max_waiting) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
  }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [this] { return tasks_.size() < max_waiting_; });
    tasks_.push_back(std::move(fn));
    work_.notify_one();
  }

  // Runs the tasks already queued, then joins the workers.
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      room_.notify_one();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable work_;
  std::condition_variable room_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// cpp-httplib's server with each connection read and written through a BoundedStream, one
// request per connection. (cpp-httplib calls process_and_close_socket on a worker for every
// accepted socket; overriding it is how its per-read timeouts are replaced.)
class BoundedServer : public httplib::Server {
 public:
  explicit BoundedServer(const HttpServerLimits& limits) : limits_(limits) {}

  // Lets as many clients wait in the kernel as may wait for a worker (cpp-httplib listens with
  // a backlog of 5); listen() again on a bound socket only changes its backlog.
  void WidenBacklog() { ::listen(svr_sock_, static_cast<int>(limits_.max_waiting)); }

 private:
  bool process_and_close_socket(socket_t sock) override {
    const auto start = std::chrono::steady_clock::now();
    StreamBounds bounds;
    bounds.read_deadline = start + limits_.request_timeout;
    bounds.write_deadline = bounds.read_deadline + limits_.response_timeout;
    bounds.head_limit = limits_.max_head_bytes;
    bounds.body_limit = 0;
    BoundedStream stream(sock, bounds);
    bool closed = true;
    const bool answered = process_request(stream, /*close_connection=*/true, closed, nullptr);
    shutdown(sock, SHUT_RDWR);
    close(sock);
    return answered;
  }

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

}  // namespace

Status HttpServer::Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                         std::unique_ptr<HttpServer>* out, const HttpServerLimits& limits) {
  const std::string where = host + ":" + std::to_string(port);
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("cannot listen on " + where + ": not a port");
  }
  if (limits.workers < 1 || limits.max_waiting < 1) {
    return Status::InvalidArgument("cannot listen on " + where + ": no worker");
  }
  auto server = std::make_unique<BoundedServer>(limits);
  server->new_task_queue = [limits] { return new WorkerPool(limits.workers, limits.max_waiting); };
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
  server->WidenBacklog();
  out->reset(new HttpServer(std::move(server), bound));
  return Status::Ok();
}

HttpServer::HttpServer(std::unique_ptr<httplib::Server> server, int port)
    : server_(std::move(server)), port_(port), thread_([this] { server_->listen_after_bind(); }) {
  // stop() only ends a server that is running: wait until the thread has entered its loop.
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpServer::~HttpServer() {
  server_->stop();
  thread_.join();
}

}  // namespace petname
