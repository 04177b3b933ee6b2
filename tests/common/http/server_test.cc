// Starts the real HttpServer on loopback and asks it with cpp-httplib's client.
#include "common/http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace petname {
namespace {

std::map<std::string, HttpServer::Handler> Routes() {
  return {{"/metrics",
           [] {
             return HttpResponse{200, kPrometheusContentType, "up 1\n"};
           }},
          {"/readyz", [] {
             return HttpResponse{503, "text/plain; charset=utf-8", "syncing\n"};
           }}};
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
