#include "operator/progress/progress_store.h"

namespace petname::progress {

bool ProgressStore::Put(const std::string& key, api::Progress progress, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = progress_.find(key);
  if (it != progress_.end()) {
    api::Progress old = it->second;
    old.update_time = progress.update_time;
    if (old == progress) return false;
  }
  progress.update_time = now;
  progress_[key] = progress;
  return true;
}

void ProgressStore::Apply(const std::string& key, const api::JobStatus& current,
                          api::JobStatus* status) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = progress_.find(key);
  if (it != progress_.end()) {
    status->progress = it->second;
  } else if (current.progress) {
    status->progress = current.progress;
  }
}

void ProgressStore::Retain(const std::set<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = progress_.begin(); it != progress_.end();) {
    it = keys.count(it->first) ? std::next(it) : progress_.erase(it);
  }
}

}  // namespace petname::progress
