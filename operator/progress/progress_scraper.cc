#include "operator/progress/progress_scraper.h"

#include <cpprest/http_client.h>
#include <spdlog/spdlog.h>

#include "operator/kube/time.h"

namespace petname::progress {
namespace {

// GETs `url`; false (with *error) on timeouts, connection errors and non-200 answers.
bool Fetch(const std::string& url, std::chrono::milliseconds timeout, std::string* body,
           std::string* error) {
  try {
    web::http::client::http_client_config config;
    config.set_timeout(timeout);
    web::http::client::http_client client(url, config);
    web::http::http_response r = client.request(web::http::methods::GET).get();
    if (r.status_code() != 200) {
      *error = "HTTP " + std::to_string(r.status_code());
      return false;
    }
    *body = r.extract_utf8string(true).get();
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace

std::string MetricsUrl(const std::string& pod_ip, int port) {
  std::string host = pod_ip.find(':') != std::string::npos ? "[" + pod_ip + "]" : pod_ip;
  return "http://" + host + ":" + std::to_string(port) + "/metrics";
}

ProgressScraper::ProgressScraper(ProgressStore* store, ScraperSources sources,
                                 std::chrono::milliseconds interval,
                                 std::chrono::milliseconds timeout)
    : store_(store), sources_(std::move(sources)), interval_(interval), timeout_(timeout) {}

ProgressScraper::~ProgressScraper() { Stop(); }

void ProgressScraper::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void ProgressScraper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressScraper::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    ScrapeOnce();
    lock.lock();
    cv_.wait_for(lock, interval_, [this] { return stop_; });
  }
}

void ProgressScraper::ScrapeOnce() {
  std::set<std::string> live = sources_.job_keys();
  store_->Retain(live);
  for (auto it = previous_.begin(); it != previous_.end();) {
    it = live.count(it->first) ? std::next(it) : previous_.erase(it);
  }
  for (const Target& t : sources_.targets()) {
    std::string body, error;
    if (!Fetch(t.url, timeout_, &body, &error)) {
      spdlog::debug("progress of {}: {}: {}", t.key, t.url, error);
      continue;
    }
    Sample sample = SampleFromExposition(body);
    if (!sample.valid) {
      spdlog::debug("progress of {}: {} has no petname_epochs_planned", t.key, t.url);
      continue;
    }
    auto now = std::chrono::steady_clock::now();
    auto prev = previous_.find(t.key);
    api::Progress progress =
        prev == previous_.end()
            ? ProgressFromSample(sample, nullptr, 0)
            : ProgressFromSample(sample, &prev->second.sample,
                                 std::chrono::duration<double>(now - prev->second.at).count());
    previous_[t.key] = {sample, now};
    if (store_->Put(t.key, progress, kube::NowUnix())) sources_.enqueue(t.key);
  }
}

}  // namespace petname::progress
