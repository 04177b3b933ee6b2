// Starts the real prometheus-cpp exposer on loopback and scrapes it over HTTP.
#include "trainer/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/metrics/process_collector.h"
#include "trainer/metrics/training_metrics.h"

namespace petname::metrics {
namespace {

// A plain HTTP/1.0 GET of /metrics on 127.0.0.1:port; returns the whole response.
std::string Get(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) response.append(buf, n);
    }
  }
  close(fd);
  return response;
}

TEST(MetricsServerTest, ServesTrainingAndProcessMetrics) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  metrics.OnStep(1.5, 64, 0.2, 0.0);
  std::unique_ptr<MetricsServer> server;
  ASSERT_TRUE(MetricsServer::Start(
                  "127.0.0.1", 0,
                  {metrics.registry(), std::make_shared<ProcessCollector>(metrics.labels())},
                  &server)
                  .ok());
  ASSERT_GT(server->port(), 0);
  const std::string body = Get(server->port());
  EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
  EXPECT_NE(body.find("petname_train_samples_total{job=\"pets\",namespace=\"ml\",rank=\"0\"} 64"),
            std::string::npos);
  EXPECT_NE(body.find("process_resident_memory_bytes{job=\"pets\",namespace=\"ml\",rank=\"0\"}"),
            std::string::npos);
}

TEST(MetricsServerTest, BusyPortIsUnavailable) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  std::unique_ptr<MetricsServer> first, second;
  ASSERT_TRUE(MetricsServer::Start("127.0.0.1", 0, {metrics.registry()}, &first).ok());
  Status s = MetricsServer::Start("127.0.0.1", first->port(), {metrics.registry()}, &second);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_EQ(second, nullptr);
}

TEST(MetricsServerTest, PortForLocalRank) {
  EXPECT_EQ(PortForLocalRank(9400, 0), 9400);
  EXPECT_EQ(PortForLocalRank(9400, 3), 9403);
  EXPECT_EQ(PortForLocalRank(0, 3), 0);
}

}  // namespace
}  // namespace petname::metrics
