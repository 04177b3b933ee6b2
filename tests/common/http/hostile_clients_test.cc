// The real HttpServer on loopback against clients that try to exhaust it: byte-range floods,
// clients that never read their answer, idle connections, one peer taking every slot, handlers
// that keep every worker busy. Deadlines that would end the bad clients are set far beyond the
// test, so the good clients are answered because the bad ones hold no worker and no slot they
// need, not because the bad ones timed out.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/http/server.h"
#include "tests/common/http/hostile_requests.h"
#include "tests/common/http/raw_client.h"

namespace petname {
namespace {

using testing::Body;
using testing::Connect;
using testing::Exchange;
using testing::ReadAll;
using testing::RunHostileRequests;
using testing::SendAll;

constexpr std::chrono::minutes kNever{10};
const std::string kExposition(7000, 'm');  // the size of a trainer's /metrics
const std::string kBig(4 << 20, 'b');      // more than the kernel's socket buffers take

std::map<std::string, HttpServer::Handler> Routes() {
  return {{"/metrics",
           [] {
             return HttpResponse{200, kPrometheusContentType, kExposition};
           }},
          {"/big",
           [] {
             return HttpResponse{200, kPrometheusContentType, kBig};
           }},
          {"/healthz",
           [] {
             return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
           }},
          {"/readyz", [] {
             return HttpResponse{503, "text/plain; charset=utf-8", "syncing\n"};
           }}};
}

std::string Get(const std::string& path, const std::string& headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n";
}

TEST(HostileClientsTest, ManyRangesOrAnEncodingAreAnsweredWithTheWholeBodyOnce) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  std::string ranges = "bytes=0-";
  for (int i = 1; i < 2000; ++i) ranges += ",0-";  // each range the whole body
  for (const std::string& header : {"Range: " + ranges, std::string("Accept-Encoding: br"),
                                    std::string("Accept-Encoding: gzip")}) {
    const std::string answer = Exchange(server->port(), Get("/metrics", header + "\r\n"));
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << header.substr(0, 40) << answer.substr(0, 200);
    EXPECT_EQ(Body(answer), kExposition) << header.substr(0, 40);
    EXPECT_LT(answer.size(), kExposition.size() + 1024);
  }
}

// A line that ends in a bare LF made the old filter stop at it, and cpp-httplib (which skips
// such lines and reads on) then saw a Range header after it.
TEST(HostileClientsTest, ABareLineFeedAnywhereInTheHeadIsRefusedAtOnce) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  std::string ranges = "bytes=0-";
  for (int i = 1; i < 2000; ++i) ranges += ",0-";
  for (const std::string& head :
       {"GET /metrics HTTP/1.1\r\nHost: x\n\nRange: " + ranges + "\r\n\r\n",
        std::string("GET /metrics HTTP/1.1\nHost: x\n\n"),
        std::string("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\n\r\n")}) {
    const std::string answer = Exchange(server->port(), head);
    EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer.substr(0, 200);
    EXPECT_LT(answer.size(), 1024u);
  }
}

// Every server's answers to the shared corpus of hostile heads (hostile_requests.py), on each
// kind of path: a large body, a probe, a probe answering 503.
TEST(HostileClientsTest, TheHostileHeadCorpusIsRefusedOrAnsweredOnce) {
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server).ok());
  std::string output;
  EXPECT_EQ(RunHostileRequests(server->port(), {"/metrics", "/healthz", "/readyz"}, &output), 0)
      << output;
}

// A handler's answer over the cap is not sent: a short 500 instead.
TEST(HostileClientsTest, AnAnswerOverTheCapIsRefused) {
  HttpServerLimits limits;
  limits.max_body_bytes = kExposition.size() - 1;
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  const std::string answer = Exchange(server->port(), Get("/metrics"));
  EXPECT_EQ(answer.rfind("HTTP/1.1 500", 0), 0u) << answer.substr(0, 200);
  EXPECT_LT(answer.size(), 1024u);
  EXPECT_EQ(Body(Exchange(server->port(), Get("/healthz"))), "ok\n");
}

// Eight clients of one peer ask for a large body and never read it; 150 idle connections
// from one other peer and 60 more from eight others. A scrape is answered in full.
TEST(HostileClientsTest, NeverReadingAndIdleClientsDoNotStopAScrape) {
  HttpServerLimits limits;
  limits.request_timeout = kNever;
  limits.response_timeout = kNever;
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  const int port = server->port();
  std::vector<int> bad;
  for (int i = 0; i < 8; ++i) {
    bad.push_back(Connect(port, "127.0.0.2"));
    SendAll(bad.back(), Get("/big"));
  }
  for (int i = 0; i < 150; ++i) bad.push_back(Connect(port, "127.0.0.3"));
  for (int i = 0; i < 60; ++i) bad.push_back(Connect(port, "127.0.0." + std::to_string(4 + i % 8)));
  const std::string scrape = Exchange(port, Get("/metrics"));
  EXPECT_EQ(scrape.rfind("HTTP/1.1 200", 0), 0u) << scrape.substr(0, 200);
  EXPECT_EQ(Body(scrape), kExposition);
  const std::string big = Exchange(port, Get("/big"));
  EXPECT_EQ(Body(big).size(), kBig.size());
  for (const int fd : bad) close(fd);
}

// A client that never reads a large answer has its connection closed at the response deadline,
// with the answer cut off.
TEST(HostileClientsTest, ANeverReadingClientIsCutOffAtTheResponseDeadline) {
  HttpServerLimits limits;
  limits.response_timeout = std::chrono::milliseconds(100);
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  const int fd = Connect(server->port());
  SendAll(fd, Get("/big"));
  pollfd p{fd, POLLRDHUP, 0};
  ASSERT_EQ(poll(&p, 1, 60000), 1) << "the connection was never closed";
  EXPECT_NE(p.revents & (POLLRDHUP | POLLHUP | POLLERR), 0);
  EXPECT_LT(ReadAll(fd).size(), kBig.size());
  close(fd);
}

// Every worker is inside a handler that does not return; /healthz and /readyz are answered.
TEST(HostileClientsTest, ProbesAreAnsweredWhileEveryWorkerIsBusy) {
  std::mutex mu;
  std::condition_variable cv;
  int entered = 0;
  bool released = false;
  auto routes = Routes();
  routes["/slow"] = [&] {
    std::unique_lock<std::mutex> lock(mu);
    ++entered;
    cv.notify_all();
    cv.wait(lock, [&] { return released; });
    return HttpResponse{200, "text/plain; charset=utf-8", "slow\n"};
  };
  HttpServerLimits limits;
  limits.workers = 2;
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, routes, &server, limits).ok());
  const int port = server->port();
  std::vector<std::thread> slow;
  std::vector<std::string> answers(limits.workers + 1);
  for (size_t i = 0; i < answers.size(); ++i) {  // one more than the workers: it waits
    slow.emplace_back([&answers, i, port] { answers[i] = Exchange(port, Get("/slow")); });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return entered == limits.workers; });
  }
  const std::string health = Exchange(port, Get("/healthz"));
  EXPECT_EQ(health.rfind("HTTP/1.1 200", 0), 0u) << health;
  EXPECT_EQ(Body(health), "ok\n");
  const std::string ready = Exchange(port, Get("/readyz?verbose"));
  EXPECT_EQ(ready.rfind("HTTP/1.1 503", 0), 0u) << ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  for (std::thread& t : slow) t.join();
  for (const std::string& answer : answers) EXPECT_EQ(Body(answer), "slow\n");
}

// Past its cap a peer's connection is closed unanswered; other peers are answered, and so is
// the peer again once one of its connections has closed.
TEST(HostileClientsTest, APeerPastItsConnectionCapIsRefusedOthersAreNot) {
  HttpServerLimits limits;
  limits.max_connections_per_peer = 3;
  limits.request_timeout = kNever;
  std::unique_ptr<HttpServer> server;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0, Routes(), &server, limits).ok());
  const int port = server->port();
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(Connect(port, "127.0.0.2"));
  EXPECT_EQ(Exchange(port, Get("/healthz"), "127.0.0.2"), "");
  EXPECT_EQ(Body(Exchange(port, Get("/healthz"), "127.0.0.3")), "ok\n");
  close(idle.back());
  idle.pop_back();
  EXPECT_EQ(Body(Exchange(port, Get("/healthz"), "127.0.0.2")), "ok\n");
  for (const int fd : idle) close(fd);
}

}  // namespace
}  // namespace petname
