// Serves a rank's metrics in the Prometheus text format on http://ADDRESS:PORT/metrics for as
// long as the object lives (common/http/server.h: cpp-httplib on std::threads, since
// prometheus-cpp's own Exposer cannot start threads in a process that loads LibTorch).
#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

#include "common/http/server.h"
#include "common/status.h"

namespace petname::metrics {

class MetricsServer {
 public:
  // Binds `address`:`port` (an IPv4 address; port 0 picks a free one) and serves
  // `collectables`, which the server keeps alive. InvalidArgument for a malformed address,
  // Unavailable when the address cannot be bound.
  static Status Start(const std::string& address, int port,
                      const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
                      std::unique_ptr<MetricsServer>* out);

  // The port actually bound.
  int port() const { return http_->port(); }

 private:
  explicit MetricsServer(std::unique_ptr<HttpServer> http) : http_(std::move(http)) {}

  std::unique_ptr<HttpServer> http_;
};

// The port rank `local_rank` listens on when ranks share a host: base_port + local_rank,
// or 0 (disabled) when base_port is 0.
int PortForLocalRank(int base_port, int local_rank);

}  // namespace petname::metrics
