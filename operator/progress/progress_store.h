// ProgressStore: the latest status.progress per job key, written by the progress scraper and
// read by the reconcile, which stays the only writer of job status. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "operator/api/job_status.h"

namespace petname::progress {

class ProgressStore {
 public:
  // Stores `progress` for `key` with updateTime `now` (Unix seconds). Returns true when it
  // differs from what was stored (updateTime aside): the caller then queues the key.
  bool Put(const std::string& key, api::Progress progress, int64_t now);

  // Sets status->progress for the reconcile: the stored progress of `key`, else the one already
  // in `current` (the job's status as read), else nothing.
  void Apply(const std::string& key, const api::JobStatus& current, api::JobStatus* status) const;

  // Drops the entries of keys not in `keys` (deleted jobs).
  void Retain(const std::set<std::string>& keys);

 private:
  mutable std::mutex mu_;
  std::map<std::string, api::Progress> progress_;
};

}  // namespace petname::progress
