#include "operator/progress/progress_scraper.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "operator/kube/time.h"

namespace petname::progress {

std::string MetricsUrl(const std::string& pod_ip, int port) {
  std::string host = pod_ip.find(':') != std::string::npos ? "[" + pod_ip + "]" : pod_ip;
  return "http://" + host + ":" + std::to_string(port) + "/metrics";
}

ProgressScraper::ProgressScraper(ProgressStore* store, ScraperSources sources,
                                 std::chrono::milliseconds interval, ScrapeLimits limits)
    : store_(store), sources_(std::move(sources)), interval_(interval), limits_(limits) {}

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

bool ProgressScraper::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
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
  std::map<std::string, Target> by_key;
  std::vector<std::string> keys;
  for (Target& t : sources_.targets()) {
    if (by_key.count(t.key) == 0) keys.push_back(t.key);
    by_key[t.key] = std::move(t);
  }
  std::vector<Target> targets;
  {
    std::lock_guard<std::mutex> lock(previous_mu_);
    for (auto it = previous_.begin(); it != previous_.end();) {
      it = live.count(it->first) ? std::next(it) : previous_.erase(it);
    }
    schedule_.Retain(live);
    for (const std::string& key : schedule_.Plan(keys)) targets.push_back(by_key[key]);
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < targets.size() && !Stopping(); i = next++) Scrape(targets[i]);
  };
  std::vector<std::thread> workers;
  const size_t n =
      std::min<size_t>(static_cast<size_t>(std::max(1, limits_.workers)), targets.size());
  for (size_t i = 0; i < n; ++i) workers.emplace_back(work);
  for (std::thread& w : workers) w.join();
}

std::optional<Sample> ProgressScraper::Read(const Target& t) {
  GetResult got;
  Status s = BoundedGet(t.url, limits_.get, &got);
  if (s.ok() && got.status != 200) {
    s = Status::Unavailable(t.url + ": HTTP " + std::to_string(got.status));
  }
  if (!s.ok()) {
    spdlog::debug("progress of {}: {} ({} bytes read)", t.key, s.message(), got.bytes_read);
    return std::nullopt;
  }
  Sample sample = SampleFromExposition(got.body);
  if (!sample.valid) {
    spdlog::debug("progress of {}: {} has no petname_epochs_planned", t.key, t.url);
    return std::nullopt;
  }
  return sample;
}

void ProgressScraper::Scrape(const Target& t) {
  const auto start = std::chrono::steady_clock::now();
  const std::optional<Sample> sample = Read(t);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  api::Progress progress;
  {
    std::lock_guard<std::mutex> lock(previous_mu_);
    schedule_.Record(t.key, Costly(sample.has_value(), took, limits_.get.timeout));
    if (!sample) return;
    auto now = std::chrono::steady_clock::now();
    auto prev = previous_.find(t.key);
    progress =
        prev == previous_.end()
            ? ProgressFromSample(*sample, nullptr, 0)
            : ProgressFromSample(*sample, &prev->second.sample,
                                 std::chrono::duration<double>(now - prev->second.at).count());
    previous_[t.key] = {*sample, now};
  }
  if (store_->Put(t.key, progress, kube::NowUnix())) sources_.enqueue(t.key);
}

}  // namespace petname::progress
