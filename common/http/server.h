// HttpServer: answers GET (and HEAD) on a fixed set of paths over HTTP/1.1 for as long as the
// object lives, with cpp-httplib (Debian's libcpp-httplib). Used for the trainer's /metrics and
// the operator's /metrics, /healthz and /readyz, which anyone who reaches the port may call, so
// every client is taken to be hostile.
//
// One std::thread accepts connections and does all their I/O, all at once (poll): it reads each
// request's head and, once it is complete, hands it to a worker std::thread (default stack
// size) that only renders the answer into memory (cpp-httplib parses, routes, calls the
// handler); the accepting thread then writes that answer and closes the connection (one
// request per connection). So no worker ever waits on a client, whatever it does:
// - A request's head must arrive whole within `request_timeout` of its connection being
//   accepted, however its bytes trickle in, or the connection is closed unanswered.
// - An answer must be taken whole within `response_timeout` of its being ready, or the
//   connection is closed with the answer cut off: a client that never reads holds no worker,
//   only its connection, and that for `response_timeout` at most, whatever the body's size.
// - At most `max_connections_per_peer` connections from one source address are open at once;
//   a further one is closed at once, unanswered. So one peer cannot take every slot.
// - At most `max_connections` connections are open (arriving, waiting for a worker, being
//   answered). When a new one comes then, the oldest connection whose head is still arriving
//   is closed to make room (a real client sends its request as soon as it connects; idle
//   connections cannot keep it out); when none is still arriving, no more are accepted and
//   clients wait in the kernel's listen backlog (as long again).
// - Requests for `probe_paths` (the kubelet's /healthz and /readyz) are rendered by a worker of
//   their own, so they never wait behind the other paths' handlers, however slow; their
//   handlers must be quick.
// - Every head is held to HTTP/1.1's grammar before cpp-httplib reads it (request_head.h): a
//   line that does not end in CRLF (a bare LF or CR anywhere) is refused (400) as soon as it
//   arrives, a folded line, a space before a header's colon or a control character once the
//   head is complete; cpp-httplib then sees only the request line, none of the client's
//   headers: no byte ranges, no compression, each answer holds its body once, and a body over
//   `max_body_bytes` is not sent (500 instead).
// Requests are refused for a head over `max_head_bytes` (400), more than `max_headers` headers
// (431), a body (413: any Content-Length but 0, any Transfer-Encoding; the body is never read),
// a method other than GET and HEAD (405).
// The memory held is bounded by `max_connections` times the largest answer, itself at most
// `max_body_bytes` and a few hundred bytes of head.
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
#include <vector>

#include "common/status.h"

namespace petname {

// The content type of the Prometheus text exposition format.
inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

struct HttpResponse {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// The bounds on each connection (see above). The defaults are the settings of every server of
// petname (the trainer's and the operator's); tests shorten the deadlines.
struct HttpServerLimits {
  int workers = 4;
  size_t max_connections = 64;
  size_t max_connections_per_peer = 8;
  std::chrono::milliseconds request_timeout{2000};
  std::chrono::milliseconds response_timeout{3000};
  size_t max_head_bytes = 8192;
  size_t max_headers = 64;
  // Hundreds of times the largest answer served (a trainer's /metrics is a few KB).
  size_t max_body_bytes = size_t{4} << 20;
  std::vector<std::string> probe_paths = {"/healthz", "/readyz"};
};

class HttpServer {
 public:
  // Called on a worker thread for each request of its path, possibly on several at once.
  using Handler = std::function<HttpResponse()>;

  // Binds `host`:`port` (port 0 picks a free one) and serves `routes`, keyed by path (a query
  // string is ignored); other paths answer 404. InvalidArgument for a port outside 0..65535 or
  // limits without a worker or a connection (overall or per peer), Unavailable when the address
  // cannot be bound.
  static Status Start(const std::string& host, int port, std::map<std::string, Handler> routes,
                      std::unique_ptr<HttpServer>* out, const HttpServerLimits& limits = {});

  // Stops accepting, closes every connection (answers still being written are cut off), lets
  // the workers finish the answers they are rendering and joins the threads.
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
