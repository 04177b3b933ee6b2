#include "operator/progress/scrape_schedule.h"

#include <algorithm>

namespace petname::progress {

std::vector<std::string> ScrapeSchedule::Plan(const std::vector<std::string>& keys) {
  ++round_;
  std::vector<std::string> healthy;
  std::vector<std::string> stalled;
  for (const std::string& key : keys) {
    auto it = stalls_.find(key);
    if (it == stalls_.end()) {
      healthy.push_back(key);
    } else if (it->second.next_round <= round_) {
      stalled.push_back(key);
    }
  }
  healthy.insert(healthy.end(), stalled.begin(), stalled.end());
  return healthy;
}

void ScrapeSchedule::Record(const std::string& key, bool stalled) {
  if (!stalled) {
    stalls_.erase(key);
    return;
  }
  Stalls& s = stalls_[key];
  // 1, 2, 4, ... rounds skipped, at most kMaxSkippedRounds.
  int64_t skip = 1;
  for (int64_t i = 0; i < s.consecutive && skip < kMaxSkippedRounds; ++i) skip *= 2;
  ++s.consecutive;
  s.next_round = round_ + std::min(skip, kMaxSkippedRounds) + 1;
}

void ScrapeSchedule::Retain(const std::set<std::string>& live) {
  for (auto it = stalls_.begin(); it != stalls_.end();) {
    it = live.count(it->first) ? std::next(it) : stalls_.erase(it);
  }
}

}  // namespace petname::progress
