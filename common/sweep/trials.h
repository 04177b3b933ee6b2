// Trial bookkeeping of a sweep, shared by the operator's sweep controller and `petname sweep`:
// what a trial reached (time to goal, best metric), which trial is best, which trials to start
// next without exceeding parallelTrialCount, median stopping, and the sweep's own phase. Pure:
// the callers observe trials (jobs on Kubernetes, processes locally) and act on the answers.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/sweep/expand.h"
#include "common/sweep/spec.h"

namespace petname::sweep {

enum class TrialPhase { kPending, kRunning, kSucceeded, kFailed, kStopped };
// "Pending", "Running", "Succeeded", "Failed", "Stopped". A trial stopped at its goal
// (stopTrialAtGoal) is Succeeded; Stopped is a trial ended early by median stopping: it
// counts as finished, not failed.
const char* TrialPhaseName(TrialPhase phase);
bool TrialPhaseFromName(const std::string& name, TrialPhase* out);
bool IsFinished(TrialPhase phase);  // Succeeded, Failed or Stopped

// One validation measurement of a trial: after `epoch`, `training_seconds` of training wall
// time since the trial started (across resumes), `wall_seconds` since its pods/processes
// started.
struct EpochPoint {
  int epoch = 0;
  double training_seconds = 0;
  double wall_seconds = 0;
  double validation_loss = std::numeric_limits<double>::quiet_NaN();
  double validation_accuracy = std::numeric_limits<double>::quiet_NaN();
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A trial as the status reports it (one row per trial).
struct Trial {
  std::string name;
  Assignment parameters;
  TrialPhase phase = TrialPhase::kPending;
  int epochs = 0;  // completed epochs
  double best_validation_loss = kNaN;
  double best_validation_accuracy = kNaN;
  double samples_per_second = kNaN;
  double wall_seconds = kNaN;  // since the trial's pods/processes started, when known
  // First epoch at which the objective's goal was reached: training seconds and wall seconds.
  double time_to_goal_seconds = kNaN;
  double wall_time_to_goal_seconds = kNaN;
  std::string message;  // why it failed or was stopped
};

// The metric's value in `p` (NaN when not measured).
double MetricOf(const EpochPoint& p, Metric metric);
// True when `value` meets the goal (<= for loss, >= for accuracy); false for NaN.
bool ReachesGoal(const Objective& objective, double value);
// true when a is better than b for the metric (a finite value beats NaN).
bool Better(Metric metric, double a, double b);

// Fills epochs, best_* and the times to goal of `trial` from its epoch points (any order;
// for a repeated epoch the last point wins).
void Summarize(const std::vector<EpochPoint>& points, const Objective& objective, Trial* trial);

// The index of the best trial by the objective's metric (its best value; ties: the earlier
// trial), or -1 when no trial has a value. With a goal, trials that reached it rank first, by
// training time to goal.
int BestTrial(const std::vector<Trial>& trials, const Objective& objective);

// Median stopping (as Katib's medianstop): a running trial is stopped after epoch e when its
// best metric up to e is worse than the median of the other trials' best values up to e, and
// at least spec.median_stopping_min_trials other trials have reached epoch e. `history[i]`
// holds trial i's epoch points.
bool ShouldStopByMedian(const SweepSpec& spec, const std::vector<std::vector<EpochPoint>>& history,
                        int trial);

struct Counts {
  int trials = 0;  // created so far
  int pending = 0;
  int running = 0;
  int succeeded = 0;
  int failed = 0;
  int stopped = 0;
};
Counts CountTrials(const std::vector<Trial>& trials);

// Which trial indices to create now: the lowest indices of [0, total) not yet created, as many
// as keep the created-and-unfinished trials at or under parallel_trial_count. `created[i]` is
// true when trial i exists (size total) and `trials` holds the created ones (by name order =
// index order). None once DecideSweepPhase says Failed.
std::vector<int> TrialsToStart(const SweepSpec& spec, int total, const std::vector<bool>& created,
                               const std::vector<Trial>& trials);

enum class SweepPhase { kCreated, kRunning, kSucceeded, kFailed };
const char* SweepPhaseName(SweepPhase phase);  // "Created", "Running", "Succeeded", "Failed"

// The sweep's phase and a one-line reason:
//  - Failed when more trials failed than max_failed_trial_count (when set, i.e. > 0: with 2,
//    the third failure fails the sweep), or all `total` trials ended and none succeeded or
//    stopped (failures alone never fail a sweep with trials still to create when unset);
//  - Succeeded when every one of `total` trials has finished (Succeeded/Failed/Stopped) and at
//    least one succeeded or stopped;
//  - Running while any trial is created and unfinished; Created before.
SweepPhase DecideSweepPhase(const SweepSpec& spec, int total, const std::vector<Trial>& trials,
                            std::string* reason);

}  // namespace petname::sweep
