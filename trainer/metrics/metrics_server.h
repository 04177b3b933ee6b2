// Serves a rank's metrics in the Prometheus text format on http://ADDRESS:PORT/metrics from
// one background thread, for as long as the object lives.
//
// prometheus-cpp's own Exposer is not used: its civetweb starts threads with a fixed
// 100 KiB stack, and in a process that loads LibTorch (large static TLS) pthread_create
// then fails, so the Exposer cannot start. This server is a plain blocking HTTP/1.0
// responder on a std::thread (default stack), serialising with prometheus-cpp.
#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace petname::metrics {

class MetricsServer {
 public:
  // Binds `address`:`port` (an IPv4 address; port 0 picks a free one) and serves
  // `collectables`, which the server keeps alive. Fails with kUnavailable when the address
  // cannot be bound.
  static Status Start(const std::string& address, int port,
                      const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
                      std::unique_ptr<MetricsServer>* out);

  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port actually bound.
  int port() const { return port_; }

 private:
  MetricsServer(int listen_fd, int stop_fd, int port,
                std::vector<std::shared_ptr<prometheus::Collectable>> collectables);

  void Serve();
  void Answer(int fd) const;

  int listen_fd_;
  int stop_fd_;  // eventfd; written by the destructor to end Serve()
  int port_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::thread thread_;
};

// The port rank `local_rank` listens on when ranks share a host: base_port + local_rank,
// or 0 (disabled) when base_port is 0.
int PortForLocalRank(int base_port, int local_rank);

}  // namespace petname::metrics
