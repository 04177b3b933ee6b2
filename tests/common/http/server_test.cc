// Starts the real HttpServer on loopback and asks it with cpp-httplib's client and with raw
// sockets that misbehave: slow, silent, oversized.
#include "common/http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/http/raw_client.h"

namespace petname {
namespace {

using testing::Connect;
using testing::Exchange;
using testing::SendAll;

std::map<std::string, HttpServer::Handler> Routes() {
  return {{"/metrics",
           [] {
             return HttpResponse{200, kPrometheusContentType, "up 1\n"};
           }},
          {"/healthz",
           [] {
             return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
           }},
          {"/readyz", [] {
             return HttpResponse{503, "text/plain; charset=utf-8", "syncing\n"};
           }}};
}

// A slowloris from `from`: starts a request, then sends one header line every 0.5 s and never
// ends it, until the server closes the connection (true) or 60 lines went out (false).
bool SlowRequestIsClosed(int port, const std::string& from = "127.0.0.1") {
  const int fd = Connect(port, from);
  bool closed = !SendAll(fd, "GET /metrics HTTP/1.1\r\n");
  for (int i = 0; i < 60 && !closed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    char buf[256];
    const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) closed = true;
    if (n > 0) continue;  // the server's answer; its close follows
    if (!closed) closed = !SendAll(fd, "X-Slow-" + std::to_string(i) + ": 1\r\n");
  }
  close(fd);
  return closed;
}

TEST(HttpServerTest, AnswersItsRoutesAndNothingElse) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  ASSERT_GT(server->port(), 0);
  httplib::Client client("127.0.0.1", server->port());

  auto metrics = client.Get("/metrics?x=1");
  ASSERT_TRUE(metrics) << httplib::to_string(metrics.error());
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->body, "up 1\n");
  EXPECT_EQ(metrics->get_header_value("Content-Type"), kPrometheusContentType);

  auto ready = client.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_EQ(ready->body, "syncing\n");

  auto other = client.Get("/metricsx");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
}

TEST(HttpServerTest, ServesManyRequestsInTurn) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  for (int i = 0; i < 20; ++i) {
    httplib::Client client("127.0.0.1", server->port());
    auto r = client.Get("/metrics");
    ASSERT_TRUE(r) << "request " << i;
    EXPECT_EQ(r->status, 200);
  }
}

TEST(HttpServerTest, AClientThatSendsNothingDoesNotStopTheServer) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  const int silent = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(silent, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(std::chrono::seconds(30));
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  close(silent);
}

// More slow clients than workers (from two other peers, within the per-peer cap): they hold no
// worker, so the others are answered.
TEST(HttpServerTest, SlowClientsDoNotStopOthersAndAreClosed) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  const int port = server->port();
  std::vector<std::thread> slow;
  std::atomic<int> closed{0};
  const int slow_clients = 3 * HttpServerLimits{}.workers;
  for (int i = 0; i < slow_clients; ++i) {
    const std::string from = i % 2 == 0 ? "127.0.0.2" : "127.0.0.3";
    slow.emplace_back([port, from, &closed] { closed += SlowRequestIsClosed(port, from) ? 1 : 0; });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them start their requests
  for (const char* path : {"/metrics", "/healthz", "/metrics", "/healthz"}) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(std::chrono::seconds(30));
    auto r = client.Get(path);
    EXPECT_TRUE(r && r->status == 200) << path << ": " << httplib::to_string(r.error());
  }
  for (std::thread& t : slow) t.join();
  EXPECT_EQ(closed, slow_clients) << "a slow request was never closed";
}

// At max_connections a new client takes the place of the oldest one still sending its request;
// the other slow one is closed at its deadline.
TEST(HttpServerTest, AtMaxConnectionsANewClientClosesTheOldestArriving) {
  HttpServerLimits limits;
  limits.max_connections = 2;
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  const int port = server->port();
  std::vector<std::thread> slow;
  std::atomic<int> closed{0};
  for (int i = 0; i < 2; ++i) {
    slow.emplace_back([port, &closed] { closed += SlowRequestIsClosed(port) ? 1 : 0; });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(30));
  auto r = client.Get("/healthz");
  EXPECT_TRUE(r && r->status == 200) << httplib::to_string(r.error());
  for (std::thread& t : slow) t.join();
  EXPECT_EQ(closed, 2);
}

TEST(HttpServerTest, ARequestWithABodyIsRefusedUnread) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  const std::string big = Exchange(
      server->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n");
  EXPECT_EQ(big.rfind("HTTP/1.1 413", 0), 0u) << big;
  const std::string chunked = Exchange(
      server->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 413", 0), 0u) << chunked;
  const std::string post =
      Exchange(server->port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 405", 0), 0u) << post;
  const std::string empty =
      Exchange(server->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(empty.rfind("HTTP/1.1 200", 0), 0u) << empty;
}

TEST(HttpServerTest, TooManyHeadersOrAHugeOneAreRefused) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  std::string many = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 200; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  const std::string too_many = Exchange(server->port(), many + "\r\n");
  EXPECT_EQ(too_many.rfind("HTTP/1.1 431", 0), 0u) << too_many;
  // A head over the limit is not read to its end: the answer is a 400, or a reset when the
  // server closes with the client's bytes unread.
  const std::string huge = Exchange(server->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Huge: " +
                                                        std::string(1 << 20, 'a') + "\r\n\r\n");
  EXPECT_TRUE(huge.empty() || huge.rfind("HTTP/1.1 400", 0) == 0) << huge.substr(0, 100);
  const std::string long_line =
      Exchange(server->port(), "GET /" + std::string(1 << 20, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(long_line.find("200 OK"), std::string::npos) << long_line.substr(0, 100);
  httplib::Client client("127.0.0.1", server->port());
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

TEST(HttpServerTest, AnswersHeadAndConcurrentRequests) {
  HttpServerLimits limits;
  limits.max_connections_per_peer = 16;  // all 16 clients come from 127.0.0.1
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  httplib::Client head_client("127.0.0.1", server->port());
  auto head = head_client.Head("/metrics");
  ASSERT_TRUE(head) << httplib::to_string(head.error());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; ++i) {
    clients.emplace_back([&] {
      httplib::Client client("127.0.0.1", server->port());
      client.set_read_timeout(std::chrono::seconds(30));
      auto r = client.Get("/metrics");
      if (r && r->status == 200 && r->body == "up 1\n") ++ok;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok, 16);
}

TEST(HttpServerTest, LimitsWithoutAWorkerOrAConnectionAreInvalid) {
  std::unique_ptr<HttpServer> server;
  HttpServerLimits none;
  none.workers = 0;
  EXPECT_EQ(HttpServer::Start("127.0.0.1", 0, Routes(), &server, none).code(),
            Status::Code::kInvalidArgument);
  HttpServerLimits no_peer;
  no_peer.max_connections_per_peer = 0;
  EXPECT_EQ(HttpServer::Start("127.0.0.1", 0, Routes(), &server, no_peer).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(server, nullptr);
}

TEST(HttpServerTest, BusyPortIsUnavailableNotShared) {
  std::unique_ptr<HttpServer> first, second;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &first).ok());
  Status s = HttpServer::Start("127.0.0.1", first->port(), Routes(), &second);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_NE(
      s.message().find("127.0.0.1:" + std::to_string(first->port()) + ": Address already in use"),
      std::string::npos)
      << s.message();
  EXPECT_EQ(second, nullptr);
}

TEST(HttpServerTest, PortOutOfRangeIsInvalid) {
  std::unique_ptr<HttpServer> server;
  EXPECT_EQ(HttpServer::Start("127.0.0.1", 70000, Routes(), &server).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(server, nullptr);
}

TEST(HttpServerTest, StopsRightAfterStartAndFreesThePort) {
  int port = 0;
  {
    std::unique_ptr<HttpServer> server;
    ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
    port = server->port();
  }
  std::unique_ptr<HttpServer> again;
  EXPECT_TRUE(HttpServer::Start("127.0.0.1", port, Routes(), &again).ok());
}

}  // namespace
}  // namespace petname
