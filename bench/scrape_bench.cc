// Plain scrapes of a trainer's /metrics, to time as a whole process: starts the real
// MetricsServer (common/http/server.h) on loopback with a trainer's registry and process
// metrics, then asks it N times, one request at a time on a new connection each, as Prometheus
// does (GET with Host, Accept and User-Agent headers), and reads each answer to its end.
//
// Usage: scrape_bench [N]   (default 2000). Prints N and the body size; exit 1 if an answer
// is not a 200 with the exposition.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/metrics/process_collector.h"
#include "trainer/metrics/metrics_server.h"
#include "trainer/metrics/training_metrics.h"

namespace {

std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  const std::string request =
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Prometheus/2.42.0\r\n"
      "Accept: text/plain;version=0.0.4;q=1,*/*;q=0.1\r\n\r\n";
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buf[65536];
    for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) answer.append(buf, n);
  }
  close(fd);
  return answer;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (n < 1) {
    std::fprintf(stderr, "scrape_bench: N must be a positive number\n");
    return 2;
  }
  petname::metrics::TrainingMetrics metrics({"bench", "local", 0, ""});
  metrics.OnStep(1.5, 4096, 0.2, 0.01);
  std::unique_ptr<petname::metrics::MetricsServer> server;
  const petname::Status started = petname::metrics::MetricsServer::Start(
      "127.0.0.1", 0,
      {metrics.registry(), std::make_shared<petname::metrics::ProcessCollector>(metrics.labels())},
      &server);
  if (!started.ok()) {
    std::fprintf(stderr, "scrape_bench: %s\n", started.message().c_str());
    return 1;
  }
  size_t body = 0;
  for (int i = 0; i < n; ++i) {
    const std::string answer = Scrape(server->port());
    const size_t end = answer.find("\r\n\r\n");
    if (answer.rfind("HTTP/1.1 200", 0) != 0 || end == std::string::npos ||
        answer.find("petname_train_samples_total", end) == std::string::npos) {
      std::fprintf(stderr, "scrape_bench: scrape %d: not a 200 with the exposition\n", i);
      return 1;
    }
    body = answer.size() - end - 4;
  }
  std::printf("%d scrapes, %zu-byte body\n", n, body);
  return 0;
}
