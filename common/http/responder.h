// Responder (HttpServer's internals): cpp-httplib's request parsing, routing and response
// writing, run on a request head the server has already received and rendered into a string,
// which the server then writes to the client itself. It owns the listening socket.
//
// Requests are refused for a head over `max_head_bytes` (400, or no answer when the request line
// is not complete within it), more than `max_headers` headers (431), a body (413: any
// Content-Length but 0, any Transfer-Encoding), a method other than GET and HEAD (405); other
// paths than the routes' answer 404. Range and If-Range headers are dropped before cpp-httplib
// reads the head (request_head.h), so every answer holds its body once at most.
#pragma once

#include <httplib.h>

#include <map>
#include <string>

#include "common/http/server.h"

namespace petname {

class Responder : public httplib::Server {
 public:
  Responder(std::map<std::string, HttpServer::Handler> routes, const HttpServerLimits& limits);
  ~Responder() override;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Binds `host`:`port` exclusively (SO_REUSEADDR, not cpp-httplib's default SO_REUSEPORT);
  // port 0 picks a free one. The port bound, or -1 with errno set.
  int Bind(const std::string& host, int port);

  // The bound socket, listening with a backlog of `max_connections` and non-blocking.
  int PrepareListening();

  // The whole answer (status line, headers, body) to the request `head` from `peer_ip`; empty
  // when there is none to give (the request line is not complete). Thread-safe.
  std::string Answer(const std::string& head, const std::string& peer_ip, int peer_port);

 private:
  const HttpServerLimits limits_;
};

}  // namespace petname
