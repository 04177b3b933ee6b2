// The ProgressScraper against real sockets: a normal trainer endpoint (the HttpServer) beside
// hostile ones (an endless /metrics, one that drips a byte every 100 ms) in one scrape round, and
// beside endpoints that never answer over many rounds.
#include "operator/progress/progress_scraper.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/http/server.h"
#include "tests/common/http/raw_server.h"

namespace petname::progress {
namespace {

using petname::testing::RawServer;

void Endless(int fd, RawServer& server) {
  if (!RawServer::ReadHead(fd)) return;
  if (!server.Send(fd, "HTTP/1.1 200 OK\r\n\r\npetname_epochs_planned 6\n")) return;
  const std::string chunk(size_t{64} * 1024, '#');
  while (server.Send(fd, chunk)) {
  }
}

// Reads the request and never answers; returns once the client gives up.
void Stall(int fd, RawServer& server) {
  if (!RawServer::ReadHead(fd)) return;
  char c;
  while (!server.stopping()) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0 && recv(fd, &c, 1, 0) <= 0) return;
  }
}

void Drip(int fd, RawServer& server) {
  if (!RawServer::ReadHead(fd)) return;
  if (!server.Send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")) return;
  while (server.Send(fd, "#")) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// Keeps the debug lines logged during the test; text() may be read while others log.
class CapturedLog {
 public:
  CapturedLog()
      : previous_(spdlog::default_logger()),
        sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000)) {
    auto logger = std::make_shared<spdlog::logger>("test", sink_);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string text() const {
    std::string out;
    for (const std::string& line : sink_->last_formatted()) out += line;
    return out;
  }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

TEST(ProgressScraperTest, HostileEndpointsEndAtTheirBoundsAndTheNormalJobStillUpdates) {
  CapturedLog log;
  RawServer endless(Endless);
  RawServer drip(Drip);
  std::unique_ptr<HttpServer> normal;
  ASSERT_TRUE(HttpServer::Start("127.0.0.1", 0,
                                {{"/metrics",
                                  [] {
                                    return HttpResponse{
                                        200, kPrometheusContentType,
                                        "petname_epochs_planned 6\npetname_epoch 2\n"};
                                  }}},
                                &normal)
                  .ok());
  std::vector<Target> targets = {
      {"ns/endless", endless.url()},
      {"ns/drip", drip.url()},
      {"ns/normal", "http://127.0.0.1:" + std::to_string(normal->port()) + "/metrics"}};

  ProgressStore store;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> enqueued;
  bool drip_ended_first = true;  // whether the dripping scrape had ended when the normal one did
  ScraperSources sources{[&] { return targets; },
                         [] {
                           return std::set<std::string>{"ns/endless", "ns/drip", "ns/normal"};
                         },
                         [&](const std::string& key) {
                           std::lock_guard<std::mutex> lock(mu);
                           if (key == "ns/normal") {
                             drip_ended_first =
                                 log.text().find("progress of ns/drip") != std::string::npos;
                           }
                           enqueued.push_back(key);
                           cv.notify_all();
                         }};
  ScrapeLimits limits;
  limits.get.timeout = std::chrono::seconds(3);
  limits.get.max_body_bytes = size_t{64} * 1024;
  ProgressScraper scraper(&store, sources, std::chrono::hours(1), limits);
  scraper.Start();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return !enqueued.empty(); }));
  }
  scraper.Stop();  // waits for the round: the hostile scrapes end at their bounds

  EXPECT_EQ(enqueued, std::vector<std::string>{"ns/normal"});
  EXPECT_FALSE(drip_ended_first) << "the normal job waited for the dripping one";
  api::JobStatus status;
  store.Apply("ns/normal", {}, &status);
  ASSERT_TRUE(status.progress.has_value());
  EXPECT_EQ(status.progress->epoch, std::optional<int64_t>(2));
  api::JobStatus none;
  store.Apply("ns/endless", {}, &none);
  EXPECT_FALSE(none.progress.has_value());

  const std::string text = log.text();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      text, m, std::regex("progress of ns/endless: .*answer over .* \\((\\d+) bytes read\\)")))
      << text;
  EXPECT_LE(std::stoul(m[1]), 8192 + limits.get.max_body_bytes);  // the body stayed under the cap
  EXPECT_LT(std::stoul(m[1]), endless.bytes_sent());
  EXPECT_TRUE(std::regex_search(
      text, std::regex("progress of ns/drip: .*no complete answer within 3000 ms")))
      << text;
}

// Reads the request, waits `delay` and answers with `answer` (a whole HTTP response).
void AnswerAfter(int fd, RawServer& server, std::chrono::milliseconds delay,
                 const std::string& answer) {
  if (!RawServer::ReadHead(fd)) return;
  const auto until = std::chrono::steady_clock::now() + delay;
  while (!server.stopping() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  server.Send(fd, answer);
}

// Runs a scraper on one worker over `costly` (endpoints whose scrapes are all costly) and a
// healthy endpoint, listed in that order, until the healthy one was read `rounds` times; returns,
// for each healthy read, how many connections the costly endpoints had taken by then.
std::vector<int> CostlySeenAtHealthyReads(const std::vector<RawServer::Serve>& costly,
                                          ScrapeLimits limits, int rounds,
                                          std::optional<int64_t>* healthy_epoch) {
  std::atomic<int> costly_connections{0};
  std::vector<std::unique_ptr<RawServer>> servers;
  std::vector<Target> targets;
  std::set<std::string> keys;
  for (size_t i = 0; i < costly.size(); ++i) {
    servers.push_back(std::make_unique<RawServer>([&, i](int fd, RawServer& server) {
      ++costly_connections;
      costly[i](fd, server);
    }));
    targets.push_back({"ns/costly-" + std::to_string(i), servers.back()->url()});
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen;
  std::unique_ptr<HttpServer> healthy;
  EXPECT_TRUE(HttpServer::Start("127.0.0.1", 0,
                                {{"/metrics",
                                  [&] {
                                    std::lock_guard<std::mutex> lock(mu);
                                    seen.push_back(costly_connections.load());
                                    return HttpResponse{
                                        200, kPrometheusContentType,
                                        "petname_epochs_planned 100\npetname_epoch " +
                                            std::to_string(seen.size()) + "\n"};
                                  }}},
                                &healthy)
                  .ok());
  if (healthy == nullptr) return {};
  targets.push_back(
      {"ns/healthy", "http://127.0.0.1:" + std::to_string(healthy->port()) + "/metrics"});
  for (const Target& t : targets) keys.insert(t.key);

  ProgressStore store;
  int healthy_stored = 0;
  ScraperSources sources{[&] { return targets; }, [&] { return keys; },
                         [&](const std::string& key) {
                           std::lock_guard<std::mutex> lock(mu);
                           if (key == "ns/healthy") ++healthy_stored;
                           cv.notify_all();
                         }};
  limits.workers = 1;
  {
    ProgressScraper scraper(&store, sources, std::chrono::milliseconds(1), limits);
    scraper.Start();
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_TRUE(
        cv.wait_for(lock, std::chrono::seconds(120), [&] { return healthy_stored >= rounds; }));
  }
  api::JobStatus status;
  store.Apply("ns/healthy", {}, &status);
  if (status.progress) *healthy_epoch = status.progress->epoch;
  seen.resize(static_cast<size_t>(rounds));
  return seen;
}

// Four endpoints that never answer and one healthy one, on one worker: a stalled target is read
// again only after 1, 2, 4... skipped rounds, and after the others, so the healthy endpoint is
// read every round and first from the second round on. Without that, every round would read all
// four stalled endpoints (each costing the whole timeout) before or between healthy reads.
TEST(ProgressScraperTest, StalledTargetsAreSkippedAndReadLastSoTheHealthyOneIsReadEveryRound) {
  ScrapeLimits limits;
  limits.get.timeout = std::chrono::milliseconds(500);
  constexpr int kRounds = 8;
  std::optional<int64_t> epoch;
  const std::vector<RawServer::Serve> stalled(4, Stall);
  // Round 1 reads the targets in the sources' order; the stalled ones are read again in rounds 3
  // and 6 (after the healthy one), then not before round 11.
  EXPECT_EQ(CostlySeenAtHealthyReads(stalled, limits, kRounds, &epoch),
            (std::vector<int>{4, 4, 4, 8, 8, 8, 12, 12}));
  EXPECT_GE(epoch, std::optional<int64_t>(kRounds));
}

// The same with endpoints that do answer, but late: a 500 two thirds into the timeout, and a
// valid exposition as late (progress, but half the timeout spent). Each costs a worker most of the
// timeout; without the backoff, N of them would delay every round by N times that.
TEST(ProgressScraperTest, FailingAndSlowTargetsAreSkippedAndReadLast) {
  ScrapeLimits limits;
  limits.get.timeout = std::chrono::milliseconds(1500);
  const std::chrono::milliseconds late(1000);
  const std::vector<RawServer::Serve> costly = {
      [late](int fd, RawServer& server) {
        AnswerAfter(fd, server, late,
                    "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
      },
      [late](int fd, RawServer& server) {
        const std::string body = "petname_epochs_planned 6\npetname_epoch 1\n";
        AnswerAfter(fd, server, late,
                    "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\n\r\n" + body);
      }};
  constexpr int kRounds = 8;
  std::optional<int64_t> epoch;
  EXPECT_EQ(CostlySeenAtHealthyReads(costly, limits, kRounds, &epoch),
            (std::vector<int>{2, 2, 2, 4, 4, 4, 6, 6}));
  EXPECT_GE(epoch, std::optional<int64_t>(kRounds));
}

}  // namespace
}  // namespace petname::progress
