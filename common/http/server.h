// HttpServer: answers GET (and HEAD) on a fixed set of paths over HTTP/1.1 for as long as the
// object lives, with cpp-httplib (Debian's libcpp-httplib). Used for the trainer's /metrics and
// the operator's /metrics, /healthz and /readyz.
//
// One std::thread (default stack size) accepts connections and answers them in turn, one
// request per connection (scrapes and probes are small and rare; a client gets 2 s to send its
// request). prometheus-cpp's own Exposer is not used: its civetweb starts threads with a fixed
// 100 KiB stack, which pthread_create refuses in a process that loads LibTorch (large static TLS).
//
// The port is bound exclusively (SO_REUSEADDR, not cpp-httplib's default SO_REUSEPORT), so a
// second server on a busy port fails instead of sharing it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"

namespace httplib {
class Server;
}

namespace petname {

// The content type of the Prometheus text exposition format.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

struct HttpResponse {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  // Called on the server's thread for each request of its path.
  using Handler = std::function<HttpResponse()>;

  // Binds `host`:`port` (port 0 picks a free one) and serves `routes`, keyed by path (a query
  // string is ignored); other paths answer 404. InvalidArgument for a port outside 0..65535,
  // Unavailable when the address cannot be bound.
  static Status Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                      std::unique_ptr<HttpServer>* out);

  // Stops serving and joins the thread.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port actually bound.
  int port() const { return port_; }

 private:
  HttpServer(std::unique_ptr<httplib::Server> server, int port);

  std::unique_ptr<httplib::Server> server_;
  int port_;
  std::thread thread_;
};

}  // namespace petname
