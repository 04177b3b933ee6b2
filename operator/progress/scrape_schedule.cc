#include "operator/progress/scrape_schedule.h"

#include <algorithm>

namespace petname::progress {

bool Costly(bool progressed, std::chrono::milliseconds took, std::chrono::milliseconds timeout) {
  return !progressed || took * 2 >= timeout;
}

std::vector<std::string> ScrapeSchedule::Plan(const std::vector<std::string>& keys) {
  ++round_;
  std::vector<std::string> cheap;
  std::vector<std::string> costly;
  for (const std::string& key : keys) {
    auto it = costly_.find(key);
    if (it == costly_.end()) {
      cheap.push_back(key);
    } else if (it->second.next_round <= round_) {
      costly.push_back(key);
    }
  }
  cheap.insert(cheap.end(), costly.begin(), costly.end());
  return cheap;
}

void ScrapeSchedule::Record(const std::string& key, bool costly) {
  if (!costly) {
    costly_.erase(key);
    return;
  }
  Costs& c = costly_[key];
  // 1, 2, 4, ... rounds skipped, at most kMaxSkippedRounds.
  int64_t skip = 1;
  for (int64_t i = 0; i < c.consecutive && skip < kMaxSkippedRounds; ++i) skip *= 2;
  ++c.consecutive;
  c.next_round = round_ + std::min(skip, kMaxSkippedRounds) + 1;
}

void ScrapeSchedule::Retain(const std::set<std::string>& live) {
  for (auto it = costly_.begin(); it != costly_.end();) {
    it = live.count(it->first) ? std::next(it) : costly_.erase(it);
  }
}

}  // namespace petname::progress
