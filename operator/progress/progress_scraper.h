// ProgressScraper: a thread of its own that, every `interval`, GETs the /metrics of rank 0 of
// each Running job (targets come from the controller's caches), turns it into status.progress,
// stores it in the ProgressStore and, when it changed, queues the job's key so that the
// reconcile writes it. The endpoints run the users' images, so each GET is bounded as a whole
// (BoundedGet): it ends `limits.get.timeout` after it starts however the bytes trickle in, and
// reads at most `limits.get.max_body_bytes` of body. A round scrapes its targets on up to
// `limits.workers` threads at once and stores each result as it comes: a slow, endless or
// unreachable endpoint costs one worker its timeout, delays neither the other jobs' progress
// beyond that nor any reconcile. A costly scrape (no progress from it, or half the timeout spent on
// it: scrape_schedule.h) makes the next rounds skip the target for a while and read it after the
// others, so that many failing or slow endpoints do not hold up the rounds that read the healthy
// ones. Failed scrapes are logged at debug level and keep the last stored progress.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/http/bounded_get.h"
#include "operator/progress/progress_store.h"
#include "operator/progress/scrape_schedule.h"
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

// The bounds of the scrapes; the defaults are the operator's (--progress-timeout,
// --progress-max-bytes). A rank's whole exposition is about 20 KiB with the longest labels
// (TrainerExpositionTest.AWholeRankExpositionIsFarBelowTheScrapeCap).
struct ScrapeLimits {
  GetLimits get{std::chrono::seconds(5), 1 << 20};
  int workers = 4;
};

class ProgressScraper {
 public:
  ProgressScraper(ProgressStore* store, ScraperSources sources, std::chrono::milliseconds interval,
                  ScrapeLimits limits);
  ~ProgressScraper();

  void Start();
  // Ends the round under way once its scrapes in flight end (each within its timeout), then
  // joins the thread.
  void Stop();

 private:
  bool Stopping();
  void Loop();
  void ScrapeOnce();
  // Scrapes `t` and stores its progress; called on the round's workers.
  void Scrape(const Target& t);
  // GETs `t`'s exposition: its sample, or nullopt (logged) when it gave none.
  std::optional<Sample> Read(const Target& t);

  ProgressStore* const store_;
  const ScraperSources sources_;
  const std::chrono::milliseconds interval_;
  const ScrapeLimits limits_;
  struct Previous {
    Sample sample;
    std::chrono::steady_clock::time_point at;
  };
  std::mutex previous_mu_;
  std::map<std::string, Previous> previous_;  // guarded by previous_mu_
  ScrapeSchedule schedule_;                   // guarded by previous_mu_
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The /metrics URL of a pod IP (IPv6 in brackets) and port.
std::string MetricsUrl(const std::string& pod_ip, int port);

}  // namespace petname::progress
