// Starts the real prometheus-cpp exposer on loopback and scrapes it over HTTP.
#include "trainer/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/metrics/process_collector.h"
#include "tests/common/http/hostile_requests.h"
#include "tests/common/http/raw_client.h"
#include "trainer/metrics/training_metrics.h"

namespace petname::metrics {
namespace {

// A plain HTTP/1.0 GET of /metrics on 127.0.0.1:port; returns the whole response.
std::string Get(int port) {
  return testing::Exchange(port, "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n");
}

// The server of a trainer whose `metrics` saw one step: its training and process metrics.
std::unique_ptr<MetricsServer> StartTrainerServer(TrainingMetrics* metrics) {
  metrics->OnStep(1.5, 64, 0.2, 0.0);
  std::unique_ptr<MetricsServer> server;
  const Status s = MetricsServer::Start(
      "127.0.0.1", 0, {metrics->registry(), std::make_shared<ProcessCollector>(metrics->labels())},
      &server);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return server;
}

TEST(MetricsServerTest, ServesTrainingAndProcessMetrics) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  const std::unique_ptr<MetricsServer> server = StartTrainerServer(&metrics);
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->port(), 0);
  const std::string body = Get(server->port());
  EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
  EXPECT_NE(body.find("petname_train_samples_total{job=\"pets\",namespace=\"ml\",rank=\"0\"} 64"),
            std::string::npos);
  EXPECT_NE(body.find("process_resident_memory_bytes{job=\"pets\",namespace=\"ml\",rank=\"0\"}"),
            std::string::npos);
}

// Clients that send a request line and then a header line every 0.5 s, never ending it, on
// more connections than the server has workers (from two other addresses than the scrape's,
// each within the server's per-peer cap), do not stop a scrape.
TEST(MetricsServerTest, SlowClientsDoNotStopTheScrape) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  std::unique_ptr<MetricsServer> server;
  ASSERT_TRUE(MetricsServer::Start("127.0.0.1", 0, {metrics.registry()}, &server).ok());
  const int port = server->port();
  std::vector<std::thread> slow;
  for (int i = 0; i < 3 * HttpServerLimits{}.workers; ++i) {
    slow.emplace_back([port, i] {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in from{};
      from.sin_family = AF_INET;
      from.sin_addr.s_addr = htonl(i % 2 == 0 ? 0x7f000002 : 0x7f000003);  // 127.0.0.2, .3
      const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) == 0;
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (bound && connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
        std::string line = "GET /metrics HTTP/1.1\r\n";
        for (int n = 0; n < 60 && send(fd, line.data(), line.size(), MSG_NOSIGNAL) > 0; ++n) {
          std::this_thread::sleep_for(std::chrono::milliseconds(500));
          line = "X-Slow: " + std::to_string(n) + "\r\n";
        }
      }
      close(fd);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::string body = Get(port);
  EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
  EXPECT_NE(body.find("petname_train_samples_total"), std::string::npos);
  for (std::thread& t : slow) t.join();
}

// The trainer's /metrics against the corpus of hostile request heads: a bare LF before a Range
// of 2,000 ranges and the other malformed heads are refused with 400; 2,000 ranges and an
// Accept-Encoding of br or gzip get the plain exposition once.
TEST(MetricsServerTest, HostileHeadsAreRefusedOrAnsweredOnce) {
  TrainingMetrics metrics({"pets", "ml", 0, ""});
  const std::unique_ptr<MetricsServer> server = StartTrainerServer(&metrics);
  ASSERT_NE(server, nullptr);
  std::string output;
  EXPECT_EQ(testing::RunHostileRequests(server->port(), {"/metrics"}, &output), 0) << output;
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
