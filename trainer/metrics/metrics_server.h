// Serves a rank's metrics in the Prometheus text format on http://ADDRESS:PORT/metrics
// (prometheus-cpp's Exposer on a background thread) for as long as the object lives.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace petname::metrics {

class MetricsServer {
 public:
  // Binds `address`:`port` (port 0 picks a free one) and serves `collectables`, which the
  // server keeps alive. Fails with kUnavailable when the address cannot be bound.
  static Status Start(const std::string& address, int port,
                      const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
                      std::unique_ptr<MetricsServer>* out);

  // The port actually bound.
  int port() const { return port_; }

 private:
  MetricsServer(std::unique_ptr<prometheus::Exposer> exposer,
                std::vector<std::shared_ptr<prometheus::Collectable>> collectables, int port);

  // Declared before the exposer, so the exposer stops before they go.
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_;
};

// The port rank `local_rank` listens on when ranks share a host: base_port + local_rank,
// or 0 (disabled) when base_port is 0.
int PortForLocalRank(int base_port, int local_rank);

}  // namespace petname::metrics
