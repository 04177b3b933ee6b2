// ProgressScraper: a worker thread of its own that, every `interval`, GETs the /metrics of rank 0
// of each Running job (targets come from the controller's caches), turns it into
// status.progress, stores it in the ProgressStore and, when it changed, queues the job's key so
// that the reconcile writes it. Every request has `timeout`; a slow or unreachable endpoint only
// delays the next scrape round, never a reconcile. Failed scrapes are logged at debug level and
// keep the last stored progress.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "operator/progress/progress_store.h"
#include "operator/progress/trainer_progress.h"

namespace petname::progress {

struct Target {
  std::string key;  // "namespace/name" of the job
  std::string url;  // http://POD_IP:PORT/metrics
};

struct ScraperSources {
  std::function<std::vector<Target>()> targets;     // rank 0 of every Running job
  std::function<std::set<std::string>()> job_keys;  // every job in the cache
  std::function<void(const std::string& key)> enqueue;
};

class ProgressScraper {
 public:
  ProgressScraper(ProgressStore* store, ScraperSources sources, std::chrono::milliseconds interval,
                  std::chrono::milliseconds timeout);
  ~ProgressScraper();

  void Start();
  void Stop();

 private:
  void Loop();
  void ScrapeOnce();

  ProgressStore* const store_;
  const ScraperSources sources_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds timeout_;
  struct Previous {
    Sample sample;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, Previous> previous_;  // only touched by the scraper thread
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The /metrics URL of a pod IP (IPv6 in brackets) and port.
std::string MetricsUrl(const std::string& pod_ip, int port);

}  // namespace petname::progress
