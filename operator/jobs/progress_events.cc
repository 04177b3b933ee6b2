#include "operator/jobs/progress_events.h"

#include <cstdint>
#include <optional>
#include <string>

#include "operator/kube/time.h"

namespace petname::controller {
namespace {

std::optional<int64_t> Failures(const api::JobStatus& s) {
  return s.progress ? s.progress->checkpoint_failures : std::nullopt;
}

}  // namespace

std::vector<JobEvent> ProgressEvents(const api::JobStatus& before, const api::JobStatus& after) {
  std::vector<JobEvent> events;
  const std::optional<int64_t> now = Failures(after);
  if (now && *now > 0 && now != Failures(before)) {
    const std::optional<int64_t> last = after.progress->last_checkpoint_time;
    events.push_back(
        {"Warning", "CheckpointFailed",
         "rank 0 could not save a checkpoint (" + std::to_string(*now) +
             " failed saves in this run); training goes on and a restart resumes from the last "
             "saved one" +
             (last ? " (" + kube::FormatTime(*last) + ")" : std::string()) +
             "; rank 0's log names the error, petname_checkpoint_failures_total{reason} counts "
             "them"});
  }
  return events;
}

}  // namespace petname::controller
