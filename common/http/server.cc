#include "common/http/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

namespace petname {
namespace {

// Answers each connection on the listening thread itself: one thread per server.
class InlineQueue : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

void ExclusivePort(socket_t sock) {
  const int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

Status HttpServer::Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                         std::unique_ptr<HttpServer>* out) {
  const std::string where = host + ":" + std::to_string(port);
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("cannot listen on " + where + ": not a port");
  }
  auto server = std::make_unique<httplib::Server>();
  server->new_task_queue = [] { return new InlineQueue; };
  server->set_socket_options(ExclusivePort);
  // One request per connection and a short read timeout: a client that keeps its connection
  // open or sends slowly cannot hold the thread for long.
  server->set_keep_alive_max_count(1);
  server->set_keep_alive_timeout(2);
  server->set_read_timeout(std::chrono::seconds(2));
  // Every path goes to one handler that looks it up exactly (cpp-httplib's patterns are regexes).
  server->Get(".*",
              [routes = std::move(routes)](const httplib::Request& req, httplib::Response& res) {
                auto it = routes.find(req.path);
                if (it == routes.end()) {
                  res.status = 404;
                  res.set_content("not found\n", "text/plain; charset=utf-8");
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
