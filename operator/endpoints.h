// The operator's HTTP endpoints (/healthz and /readyz; /metrics) at controller-runtime style
// bind addresses: ":8081" (all interfaces), "127.0.0.1:8081", "[::1]:8081", or "0" (disabled).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/http/server.h"
#include "common/status.h"

namespace petname {

struct BindAddress {
  bool disabled = false;  // "0"
  std::string host;       // "0.0.0.0" for ":PORT"; without brackets for an IPv6 address
  int port = 0;
};

// Parses `bind`; InvalidArgument naming it when it is not HOST:PORT, :PORT or 0. Pure.
Status ParseBindAddress(const std::string& bind, BindAddress* out);

// Serves `routes` at `bind`. Leaves *out empty for "0". InvalidArgument for a malformed
// address, Unavailable when it cannot listen.
Status ServeEndpoint(const std::string& bind, std::map<std::string, HttpServer::Handler> routes,
                     std::unique_ptr<HttpServer>* out);

}  // namespace petname
