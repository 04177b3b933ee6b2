// ScrapeSchedule: which progress targets a scrape round reads, and in what order, so that
// endpoints that fail or answer slowly cost the others little. A costly scrape (Costly: it gave no
// progress, whatever the reason: no answer in time, a refused connection, an HTTP error such as a
// 500 just before the timeout, a body without the trainer's metrics; or it took at least half the
// timeout, whatever it answered) skips its target for the next rounds, doubling with every further
// consecutive costly scrape, 1, 2, 4, then at most kMaxSkippedRounds; and every round reads the
// targets whose last scrape was cheap before those whose last one was costly. A target read cheaply
// is read every round again. Pure and not thread-safe: the scraper guards it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace petname::progress {

// Whether a scrape that ended after `took` (the scrape's timeout being `timeout`) is costly:
// it gave no progress, or took at least half the timeout.
bool Costly(bool progressed, std::chrono::milliseconds took, std::chrono::milliseconds timeout);

class ScrapeSchedule {
 public:
  static constexpr int64_t kMaxSkippedRounds = 8;

  // Starts a round: the keys of `keys` (the round's targets, in the sources' order) to read in
  // this round, those whose last scrape was costly last, the order otherwise kept.
  std::vector<std::string> Plan(const std::vector<std::string>& keys);

  // The outcome of the scrape of `key` in the current round.
  void Record(const std::string& key, bool costly);

  // Forgets targets not in `live`.
  void Retain(const std::set<std::string>& live);

 private:
  struct Costs {
    int64_t consecutive = 0;
    int64_t next_round = 0;  // the first round that reads the target again
  };
  int64_t round_ = 0;
  std::map<std::string, Costs> costly_;  // only targets whose last scrape was costly
};

}  // namespace petname::progress
