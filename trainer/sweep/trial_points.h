// A trial's epoch points (sweep::EpochPoint) from the metrics.jsonl its trainer appends to the
// trial's checkpoint directory. Pure.
#pragma once

#include <vector>

#include "common/sweep/trials.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::sweep {

// One point per record: training seconds = elapsed_seconds (across resumes); wall seconds =
// timestamp - `start_unix` (when the trial's process started), NaN for records from before
// it (an earlier run of a resumed trial) or when start_unix is NaN (not known).
std::vector<EpochPoint> PointsFromRecords(const std::vector<metrics::EpochRecord>& records,
                                          double start_unix);

// The samples per second of the newest record, NaN without records.
double LatestSamplesPerSecond(const std::vector<metrics::EpochRecord>& records);

}  // namespace petname::sweep
