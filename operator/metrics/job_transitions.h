// Which job lifecycle counters a status write advances. Counted on observed transitions
// between the status a reconcile read and the one it wrote (level-triggered: a job that is
// re-reconciled in the same phase counts nothing again).
#pragma once

#include <cstdint>

#include "operator/api/job_status.h"

namespace petname::operator_metrics {

struct JobTransitions {
  bool created = false;    // first status write: no phase before, a phase now
  bool succeeded = false;  // phase became Succeeded
  bool failed = false;     // phase became Failed
  int64_t restarts = 0;    // increase of status.restarts
};

JobTransitions CountTransitions(const api::JobStatus& old_status, const api::JobStatus& new_status);

}  // namespace petname::operator_metrics
