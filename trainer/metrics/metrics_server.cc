#include "trainer/metrics/metrics_server.h"

#include <exception>
#include <utility>

namespace petname::metrics {

MetricsServer::MetricsServer(std::unique_ptr<prometheus::Exposer> exposer,
                             std::vector<std::shared_ptr<prometheus::Collectable>> collectables,
                             int port)
    : collectables_(std::move(collectables)), exposer_(std::move(exposer)), port_(port) {}

Status MetricsServer::Start(
    const std::string& address, int port,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
    std::unique_ptr<MetricsServer>* out) {
  const std::string bind = address + ":" + std::to_string(port);
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(bind, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot serve metrics on " + bind + ": " + e.what());
  }
  for (const auto& collectable : collectables) exposer->RegisterCollectable(collectable);
  const std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) return Status::Unavailable("cannot serve metrics on " + bind);
  out->reset(new MetricsServer(std::move(exposer), collectables, ports.front()));
  return Status::Ok();
}

int PortForLocalRank(int base_port, int local_rank) {
  return base_port == 0 ? 0 : base_port + local_rank;
}

}  // namespace petname::metrics
