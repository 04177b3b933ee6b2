// HttpServer: answers GET (and HEAD) on a fixed set of paths over HTTP/1.1 for as long as the
// object lives, with cpp-httplib (Debian's libcpp-httplib). Used for the trainer's /metrics and
// the operator's /metrics, /healthz and /readyz, which anyone who reaches the port may call.
//
// One std::thread accepts connections and reads their requests' heads, all at once (poll), and
// hands each complete one to a few worker std::threads (default stack size) that answer it, one
// request per connection, and close the connection. A request must arrive whole within
// `request_timeout` of its connection being accepted, however its bytes trickle in, or the
// connection is closed unanswered; a worker's answer must be taken within `response_timeout`
// more (BoundedStream). So slow or silent clients hold no worker, and cannot stop the others
// from being answered; while `max_connections` connections are open (arriving, waiting for a
// worker or being answered) no more are accepted, and further clients wait in the kernel's
// listen backlog (as long again). Requests are refused, and the connection closed, for a head
// (request line and headers) over `max_head_bytes` (400, or closed before the request line
// ends), more than `max_headers` headers (431), a body (413: any Content-Length but 0, any
// Transfer-Encoding; the body is never read), a method other than GET and HEAD (405).
//
// prometheus-cpp's own Exposer is not used: its civetweb starts threads with a fixed 100 KiB
// stack, which pthread_create refuses in a process that loads LibTorch (large static TLS).
//
// The port is bound exclusively (SO_REUSEADDR, not cpp-httplib's default SO_REUSEPORT), so a
// second server on a busy port fails instead of sharing it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"

namespace petname {

// The content type of the Prometheus text exposition format.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

struct HttpResponse {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// The bounds on each connection (see above); the defaults are the servers' settings.
struct HttpServerLimits {
  int workers = 4;
  size_t max_connections = 64;
  std::chrono::milliseconds request_timeout{2000};
  std::chrono::milliseconds response_timeout{10000};
  size_t max_head_bytes = 8192;
  size_t max_headers = 64;
};

class HttpServer {
 public:
  // Called on a worker thread for each request of its path, possibly on several at once.
  using Handler = std::function<HttpResponse()>;

  // Binds `host`:`port` (port 0 picks a free one) and serves `routes`, keyed by path (a query
  // string is ignored); other paths answer 404. InvalidArgument for a port outside 0..65535 or
  // limits without a worker or a connection, Unavailable when the address cannot be bound.
  static Status Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                      std::unique_ptr<HttpServer>* out, const HttpServerLimits& limits = {});

  // Stops accepting, closes the connections still arriving, lets the workers answer those they
  // were given (each within its timeouts) and joins the threads.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port actually bound.
  int port() const { return port_; }

 private:
  struct Loop;
  HttpServer(std::unique_ptr<Loop> loop, int port);

  std::unique_ptr<Loop> loop_;
  int port_;
  std::thread thread_;
};

}  // namespace petname
