// Endpoint: a tiny HTTP server (cpprestsdk http_listener) answering GET on fixed paths, for the
// operator's health probes (/healthz, /readyz) and its /metrics text. Bind addresses are
// controller-runtime style: ":8081" (all interfaces), "127.0.0.1:8081", or "0" (disabled).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <cpprest/http_listener.h>

#include "common/status.h"

namespace petname {

class Endpoint {
 public:
  // A handler returns (HTTP code, body).
  using Handler = std::function<std::pair<int, std::string>()>;

  ~Endpoint();

  // Starts listening on `bind` and serving `routes`. InvalidArgument for a malformed address,
  // Unavailable when it cannot listen. A "0" bind starts nothing and returns OK.
  Status Start(const std::string& bind, std::map<std::string, Handler> routes);
  void Stop();

 private:
  std::map<std::string, Handler> routes_;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
};

}  // namespace petname
