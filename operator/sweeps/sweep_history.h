// What a sweep's status keeps of each trial's per-epoch history: only what median stopping
// (sweep::ShouldStopByMedian) reads, so that the status of a large sweep stays far below the
// API server's object size limit (1.5 MiB in etcd). Median stopping reads, per trial, the last
// epoch observed and the best value of the objective's metric up to any epoch; so a trial's
// history keeps the objective's metric only (the other is left out), at 6 significant digits,
// and only the points that improved the trial's best so far, plus the last point. Every answer of
// ShouldStopByMedian over the kept history equals its answer over the whole (values compared at
// 6 significant digits). Pure.
#pragma once

#include <vector>

#include "common/sweep/spec.h"
#include "common/sweep/trials.h"

namespace petname::controller {

// `point` as the status keeps it: the objective's metric only, rounded to 6 significant digits.
sweep::EpochPoint KeptPoint(sweep::Metric metric, const sweep::EpochPoint& point);

// Drops from `history` (epoch order) every point but the last that does not improve the best
// value of `metric` before it.
void CompactHistory(sweep::Metric metric, std::vector<sweep::EpochPoint>* history);

}  // namespace petname::controller
