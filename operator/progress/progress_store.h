// ProgressStore: the latest status.progress per job key, written by the progress scraper and
// read by the reconcile, which stays the only writer of job status. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace petname::progress {

class ProgressStore {
 public:
  // Stores `progress` for `key` with updateTime `now` (RFC 3339). Returns true when it differs
  // from what was stored (updateTime aside): the caller then queues the key.
  bool Put(const std::string& key, nlohmann::json progress, const std::string& now);

  // Sets (*status)["progress"] for the reconcile: the stored progress of `key`, else the one
  // already in `current` (the job's status as read), else nothing.
  void Apply(const std::string& key, const nlohmann::json& current, nlohmann::json* status) const;

  // Drops the entries of keys not in `keys` (deleted jobs).
  void Retain(const std::set<std::string>& keys);

 private:
  mutable std::mutex mu_;
  std::map<std::string, nlohmann::json> progress_;
};

}  // namespace petname::progress
