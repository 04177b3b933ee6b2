#include "operator/progress/progress_store.h"

namespace petname::progress {

bool ProgressStore::Put(const std::string& key, nlohmann::json progress, const std::string& now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = progress_.find(key);
  if (it != progress_.end()) {
    nlohmann::json old = it->second;
    old.erase("updateTime");
    if (old == progress) return false;
  }
  progress["updateTime"] = now;
  progress_[key] = std::move(progress);
  return true;
}

void ProgressStore::Apply(const std::string& key, const nlohmann::json& current,
                          nlohmann::json* status) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = progress_.find(key);
  if (it != progress_.end()) {
    (*status)["progress"] = it->second;
  } else if (current.is_object() && current.contains("progress")) {
    (*status)["progress"] = current["progress"];
  }
}

void ProgressStore::Retain(const std::set<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = progress_.begin(); it != progress_.end();) {
    it = keys.count(it->first) ? std::next(it) : progress_.erase(it);
  }
}

}  // namespace petname::progress
