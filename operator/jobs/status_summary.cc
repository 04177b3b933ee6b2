#include "operator/jobs/status_summary.h"

#include "operator/api/conditions.h"

namespace petname::controller {
namespace {

// The condition of `type` when it has `status` (and, unless `except` is empty, another reason).
const api::Condition* Matching(const api::JobStatus& s, const char* type, bool status,
                               const char* except = "") {
  const api::Condition* c = api::FindCondition(s.conditions, type);
  if (c == nullptr || c->status != status || c->reason == except) return nullptr;
  return c;
}

const api::Condition* Why(const api::JobStatus& s) {
  switch (s.phase) {
    case api::JobPhase::kFailed:
      return Matching(s, api::kFailed, true);
    case api::JobPhase::kRestarting:
      return Matching(s, api::kRestarting, true);
    case api::JobPhase::kPending:
    case api::JobPhase::kRunning:
      for (const api::Condition* c : {Matching(s, api::kGangScheduling, false),
                                      Matching(s, api::kPodsReady, false, "PodsStarting"),
                                      Matching(s, api::kPodsScheduled, false)}) {
        if (c != nullptr) return c;
      }
      return nullptr;
    case api::JobPhase::kSuspended:  // waiting for Kueue, or evicted by it; not a user's suspend
      return Matching(s, api::kSuspended, true, "Suspended");
    default:
      return nullptr;
  }
}

}  // namespace

void Summarize(api::JobStatus* status) {
  const api::Condition* why = Why(*status);
  status->reason = why != nullptr ? why->reason : "";
  status->message = why != nullptr ? why->message : "";
}

}  // namespace petname::controller
