#include "trainer/launch/log_layout.h"

#include <algorithm>

namespace petname::launch {
namespace {

// Parses `text` as a whole number in 0..kMaxAttempt without sign or leading zeros.
bool ParseNumber(const std::string& text, int* out) {
  if (text.empty() || text.size() > 7 || (text.size() > 1 && text[0] == '0')) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > kMaxAttempt) return false;
  *out = value;
  return true;
}

// The number between `prefix` and `suffix` of `name`.
bool ParseBetween(const std::string& name, const std::string& prefix, const std::string& suffix,
                  int* out) {
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  return ParseNumber(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()), out);
}

}  // namespace

std::string AttemptDirName(int attempt) { return "attempt-" + std::to_string(attempt); }

bool ParseAttemptDirName(const std::string& name, int* attempt) {
  return ParseBetween(name, "attempt-", "", attempt);
}

std::string RankLogName(int rank) { return "rank-" + std::to_string(rank) + ".log"; }

std::string RankTailName(int rank, int older) {
  return "rank-" + std::to_string(rank) + (older == 0 ? ".tail.log" : ".tail.1.log");
}

bool ParseRankLogName(const std::string& name, int* rank) {
  return ParseBetween(name, "rank-", ".log", rank);
}

int NextAttempt(const std::vector<int>& existing) {
  return existing.empty() ? 0 : *std::max_element(existing.begin(), existing.end()) + 1;
}

std::vector<int> AttemptsToRemove(std::vector<int> existing, int current, int keep) {
  std::sort(existing.begin(), existing.end());
  existing.erase(std::unique(existing.begin(), existing.end()), existing.end());
  existing.erase(std::remove(existing.begin(), existing.end(), current), existing.end());
  const size_t others = static_cast<size_t>(std::max(0, keep - 1));
  if (existing.size() <= others) return {};
  existing.resize(existing.size() - others);
  return existing;
}

}  // namespace petname::launch
