// Responder (HttpServer's internals): cpp-httplib's request parsing, routing and response
// writing, run on a request head the server has already received and rendered into a string,
// which the server then writes to the client itself. It owns the listening socket.
//
// Each head is first screened (request_head.h): a malformed one is refused with 400, one with
// more than `max_headers` headers with 431, a body with 413, a method other than GET and HEAD
// with 405, all rendered here; cpp-httplib reads only the request line of the others (no
// header of the client's), routes it and renders the answer: 404 for other paths than the
// routes', 500 for a body over `max_body_bytes`. So every answer holds its body once at most,
// uncompressed.
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
