// A sweep trial's status row (sweep::Trial) and metric history brought up to date from its trial
// job's status, as sweep_desired.h describes the rows: the phase from the job's (Pending,
// Running/Restarting -> Running, Succeeded, Failed, Suspended or spec.runPolicy.suspend ->
// Stopped), the best of the row's and the job's status.progress, the wall time once the job has
// finished, and the history as sweep_history.h keeps it. Pure.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "common/sweep/spec.h"
#include "common/sweep/trials.h"

namespace petname::controller {

// `row` and `history` (the old status's, or fresh ones) updated from the trial job's status;
// the history as sweep_history.h keeps it for `metric`, the objective's.
void ObserveTrialJob(const nlohmann::json& job, sweep::Metric metric, sweep::Trial* row,
                     std::vector<sweep::EpochPoint>* history);

}  // namespace petname::controller
