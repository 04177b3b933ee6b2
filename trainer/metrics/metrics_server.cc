#include "trainer/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <utility>

namespace petname::metrics {

Status MetricsServer::Start(
    const std::string& address, int port,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
    std::unique_ptr<MetricsServer>* out) {
  in_addr parsed{};
  if (port < 0 || port > 65535 || inet_pton(AF_INET, address.c_str(), &parsed) != 1) {
    return Status::InvalidArgument("cannot serve metrics on " + address + ":" +
                                   std::to_string(port) + ": not an IPv4 address and port");
  }
  auto scrape = [collectables] {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& collectable : collectables) {
      for (auto& family : collectable->Collect()) families.push_back(std::move(family));
    }
    return HttpResponse{200, kPrometheusContentType,
                        prometheus::TextSerializer().Serialize(families)};
  };
  std::unique_ptr<HttpServer> http;
  Status s = HttpServer::Start(address, port, {{"/metrics", scrape}}, &http);
  if (!s.ok()) return Status::Unavailable("cannot serve metrics: " + s.message());
  out->reset(new MetricsServer(std::move(http)));
  return Status::Ok();
}

int PortForLocalRank(int base_port, int local_rank) {
  return base_port == 0 ? 0 : base_port + local_rank;
}

}  // namespace petname::metrics
