// The run's goal (`petname train --goal METRIC=VALUE [--stop-at-goal]`): a validation metric
// and the value that counts as reached (validationLoss: <= VALUE; validationAccuracy: >= VALUE).
// The trainer notes the first epoch that meets it, exports its training time (time to goal)
// and, with --stop-at-goal, ends there. The metric names are those of a sweep's objective
// (common/sweep/spec.h), so a sweep passes its objective through unchanged.
//
// Pure: no LibTorch, no I/O.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "trainer/metrics/metrics_log.h"

namespace petname::train {

enum class GoalMetric { kValidationLoss, kValidationAccuracy };

struct Goal {
  bool set = false;
  GoalMetric metric = GoalMetric::kValidationLoss;
  double value = 0;
  bool stop = false;  // --stop-at-goal
};

// Parses "validationLoss=1.9" or "validationAccuracy=0.55" into *out (set = true; stop is left
// alone). InvalidArgument names --goal and the problem: unknown metric, a value that is not a
// finite number, a loss below 0 or an accuracy outside [0, 1].
Status ParseGoal(const std::string& text, Goal* out);

// "validationLoss <= 1.9".
std::string DescribeGoal(const Goal& goal);

// True when the epoch's validation results meet a set goal; false for NaN or an unset goal.
bool GoalMet(const Goal& goal, double validation_loss, double validation_accuracy);

// The first record (lowest epoch, at most `up_to_epoch`) of `records` that meets the goal, or
// null: a resumed run recognises a goal its earlier runs reached.
const metrics::EpochRecord* FirstRecordMeetingGoal(const Goal& goal,
                                                   const std::vector<metrics::EpochRecord>& records,
                                                   int up_to_epoch);

}  // namespace petname::train
