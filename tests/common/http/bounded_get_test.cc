// BoundedGet against real sockets: the HttpServer, and raw servers that answer as a hostile
// trainer image could (endless, dripping, oversized, malformed).
#include "common/http/bounded_get.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "common/http/server.h"
#include "tests/common/http/raw_server.h"

namespace petname {
namespace {

using testing::RawServer;

constexpr size_t kHeadLimit = 8192;  // bounded_get.h: at most 8 KiB of status line and headers

// Answers 200 with an endless body, as fast as the client reads.
void Endless(int fd, RawServer& server) {
  if (!RawServer::ReadHead(fd)) return;
  if (!server.Send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")) return;
  const std::string chunk(size_t{64} * 1024, 'x');
  while (server.Send(fd, chunk)) {
  }
}

// Sends `prefix`, then one byte of `drip` every 100 ms, for ever.
RawServer::Serve Drip(const std::string& prefix, char drip) {
  return [prefix, drip](int fd, RawServer& server) {
    if (!RawServer::ReadHead(fd) || !server.Send(fd, prefix)) return;
    while (server.Send(fd, std::string(1, drip))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  };
}

RawServer::Serve Answer(const std::string& answer) {
  return [answer](int fd, RawServer& server) {
    if (RawServer::ReadHead(fd)) server.Send(fd, answer);
  };
}

TEST(ParseHttpUrlTest, IpAddressesPortsAndPaths) {
  HttpUrl u;
  ASSERT_TRUE(ParseHttpUrl("http://10.244.0.7:9400/metrics", &u).ok());
  EXPECT_EQ(u.host, "10.244.0.7");
  EXPECT_EQ(u.port, 9400);
  EXPECT_EQ(u.path, "/metrics");
  ASSERT_TRUE(ParseHttpUrl("http://[fd00::7]:80", &u).ok());
  EXPECT_EQ(u.host, "fd00::7");
  EXPECT_EQ(u.port, 80);
  EXPECT_EQ(u.path, "/");
  for (const std::string bad :
       {"", "https://1.2.3.4:1/", "http://1.2.3.4/", "http://pod.example:80/", "http://1.2.3.4:0/",
        "http://1.2.3.4:65536/", "http://1.2.3.4:8x/", "http://fd00::7:80/", "http://[fd00::7/",
        "http://:80/"}) {
    Status s = ParseHttpUrl(bad, &u);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("'" + bad + "'"), std::string::npos) << s.message();
  }
}

TEST(BoundedGetTest, ReadsAnAnswerOfHttpServer) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0,
                                {{"/metrics",
                                  [] {
                                    return HttpResponse{200, kPrometheusContentType, "up 1\n"};
                                  }}},
                                &server)
                  .ok());
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port());
  GetResult got;
  ASSERT_TRUE(BoundedGet(url + "/metrics", {}, &got).ok());
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, "up 1\n");
  GetResult missing;
  ASSERT_TRUE(BoundedGet(url + "/other", {}, &missing).ok());
  EXPECT_EQ(missing.status, 404);
}

TEST(BoundedGetTest, ReadsChunkedAndUntilCloseAnswers) {
  RawServer chunked(
      Answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nup 1\n\r\n5\r\nup "
             "2\n\r\n0\r\n\r\n"));
  GetResult got;
  ASSERT_TRUE(BoundedGet(chunked.url(), {}, &got).ok());
  EXPECT_EQ(got.body, "up 1\nup 2\n");
  RawServer until_close(Answer("HTTP/1.0 200 OK\r\n\r\nup 3\n"));
  ASSERT_TRUE(BoundedGet(until_close.url(), {}, &got).ok());
  EXPECT_EQ(got.body, "up 3\n");
}

TEST(BoundedGetTest, AnEndlessBodyStopsAtTheCap) {
  RawServer endless(Endless);
  GetLimits limits;
  limits.timeout = std::chrono::seconds(60);  // the cap, not the timeout, must end it
  limits.max_body_bytes = size_t{64} * 1024;
  GetResult got;
  Status s = BoundedGet(endless.url(), limits, &got);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("answer over"), std::string::npos) << s.message();
  EXPECT_GT(got.bytes_read, limits.max_body_bytes);
  EXPECT_LE(got.bytes_read, kHeadLimit + limits.max_body_bytes);
  EXPECT_TRUE(got.body.empty());
}

TEST(BoundedGetTest, ADeclaredBodyOverTheCapIsNotRead) {
  RawServer big(
      Answer("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n" + std::string(2000000, 'x')));
  GetLimits limits;
  GetResult got;
  Status s = BoundedGet(big.url(), limits, &got);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_LE(got.bytes_read, kHeadLimit + limits.max_body_bytes);
}

TEST(BoundedGetTest, ADripInTheBodyOrTheHeadersEndsAtTheTimeout) {
  GetLimits limits;
  limits.timeout = std::chrono::seconds(1);
  for (const auto& [prefix, drip] :
       {std::pair<std::string, char>{"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n", 'x'},
        std::pair<std::string, char>{"HTTP/1.1 200 OK\r\n", 'X'}}) {
    RawServer dripping(Drip(prefix, drip));
    GetResult got;
    Status s = BoundedGet(dripping.url(), limits, &got);
    EXPECT_EQ(s.code(), Status::Code::kUnavailable);
    EXPECT_NE(s.message().find("no complete answer within 1000 ms"), std::string::npos)
        << s.message();
    EXPECT_LT(got.bytes_read, kHeadLimit);
  }
}

TEST(BoundedGetTest, AnEndlessHeaderLineStopsAtTheHeadLimit) {
  RawServer endless([](int fd, RawServer& server) {
    if (!RawServer::ReadHead(fd) || !server.Send(fd, "HTTP/1.1 200 OK\r\nX: ")) return;
    const std::string chunk(size_t{64} * 1024, 'x');
    while (server.Send(fd, chunk)) {
    }
  });
  GetLimits limits;
  limits.timeout = std::chrono::seconds(60);
  GetResult got;
  Status s = BoundedGet(endless.url(), limits, &got);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("answer over"), std::string::npos) << s.message();
  EXPECT_EQ(got.bytes_read, kHeadLimit);
}

TEST(BoundedGetTest, NoServerIsUnavailable) {
  int port = 0;
  {
    RawServer gone(Answer(""));
    port = gone.port();
  }
  GetResult got;
  Status s = BoundedGet("http://127.0.0.1:" + std::to_string(port) + "/metrics", {}, &got);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
  EXPECT_EQ(BoundedGet("http://name:80/", {}, &got).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace petname
