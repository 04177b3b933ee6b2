// Summarize: status.reason and status.message, the one-line "why" that `kubectl get pntj` shows in
// its REASON column (pure, from the status's phase and conditions, re-derived on every pass):
//  - Failed: the Failed condition's reason and message (RankFailed, DeadlineExceeded,
//    ImagePullBackOff, ...);
//  - Restarting: the Restarting condition's (the failure that caused the restart);
//  - Pending or Running: the first of condition GangScheduling False, PodsReady False with a reason
//    other than PodsStarting (a start error or Unschedulable, jobs/pod_start.h) and
//    PodsScheduled False;
//  - Suspended by Kueue (kueue/queue_admission.h): the Suspended condition's (WaitingForAdmission,
//    Preempted, Deactivated, ...); spec.runPolicy.suspend's own reason Suspended is not repeated;
//  - otherwise (Succeeded, suspended by the user, nothing wrong) both empty.
#pragma once

#include "operator/api/job_status.h"

namespace petname::controller {

void Summarize(api::JobStatus* status);

}  // namespace petname::controller
