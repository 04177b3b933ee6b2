#include "operator/metrics/job_transitions.h"

#include <algorithm>

namespace petname::operator_metrics {

JobTransitions CountTransitions(const api::JobStatus& old_status,
                                const api::JobStatus& new_status) {
  using api::JobPhase;
  JobTransitions t;
  const JobPhase before = old_status.phase, after = new_status.phase;
  t.created = before == JobPhase::kUnset && after != JobPhase::kUnset;
  t.succeeded = after == JobPhase::kSucceeded && before != JobPhase::kSucceeded;
  t.failed = after == JobPhase::kFailed && before != JobPhase::kFailed;
  t.restarts = std::max<int64_t>(0, int64_t{new_status.restarts} - old_status.restarts);
  return t;
}

}  // namespace petname::operator_metrics
