// ScrapeSchedule: which progress targets a scrape round reads, and in what order, so that
// endpoints that stall cost little: a scrape that ran into its timeout (the costly failure; a
// refused connection or an HTTP error ends at once) skips its target for the next rounds,
// doubling with every further consecutive stall, 1, 2, 4, then at most kMaxSkippedRounds; and
// every round reads the targets that did not stall last time before those that did. A target
// that answers in time is read every round again. Pure and not thread-safe: the scraper guards
// it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace petname::progress {

class ScrapeSchedule {
 public:
  static constexpr int64_t kMaxSkippedRounds = 8;

  // Starts a round: the keys of `keys` (the round's targets, in the sources' order) to read in
  // this round, those that stalled last time last, the order otherwise kept.
  std::vector<std::string> Plan(const std::vector<std::string>& keys);

  // The outcome of the scrape of `key` in the current round.
  void Record(const std::string& key, bool stalled);

  // Forgets targets not in `live`.
  void Retain(const std::set<std::string>& live);

 private:
  struct Stalls {
    int64_t consecutive = 0;
    int64_t next_round = 0;  // the first round that reads the target again
  };
  int64_t round_ = 0;
  std::map<std::string, Stalls> stalls_;  // only targets whose last scrape stalled
};

}  // namespace petname::progress
