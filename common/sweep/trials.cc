#include "common/sweep/trials.h"

#include <algorithm>
#include <map>

namespace petname::sweep {
namespace {

constexpr const char* kTrialPhaseNames[] = {"Pending", "Running", "Succeeded", "Failed", "Stopped"};

// The better of a and b for `metric` (NaN when both are NaN).
double BetterOf(Metric metric, double a, double b) { return Better(metric, b, a) ? b : a; }

// The best value of `metric` among `points` with epoch <= `epoch` (NaN when none).
double BestUpTo(const std::vector<EpochPoint>& points, Metric metric, int epoch) {
  double best = kNaN;
  for (const EpochPoint& p : points) {
    if (p.epoch <= epoch) best = BetterOf(metric, best, MetricOf(p, metric));
  }
  return best;
}

int LastEpoch(const std::vector<EpochPoint>& points) {
  int last = 0;
  for (const EpochPoint& p : points) last = std::max(last, p.epoch);
  return last;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double BestOfTrial(const Trial& t, Metric metric) {
  return metric == Metric::kValidationAccuracy ? t.best_validation_accuracy
                                               : t.best_validation_loss;
}

}  // namespace

const char* TrialPhaseName(TrialPhase phase) { return kTrialPhaseNames[static_cast<int>(phase)]; }

bool TrialPhaseFromName(const std::string& name, TrialPhase* out) {
  for (int i = 0; i < 5; ++i) {
    if (name == kTrialPhaseNames[i]) {
      *out = static_cast<TrialPhase>(i);
      return true;
    }
  }
  return false;
}

bool IsFinished(TrialPhase phase) {
  return phase == TrialPhase::kSucceeded || phase == TrialPhase::kFailed ||
         phase == TrialPhase::kStopped;
}

double MetricOf(const EpochPoint& p, Metric metric) {
  return metric == Metric::kValidationAccuracy ? p.validation_accuracy : p.validation_loss;
}

bool ReachesGoal(const Objective& objective, double value) {
  if (!objective.has_goal || std::isnan(value)) return false;
  return objective.metric == Metric::kValidationAccuracy ? value >= objective.goal
                                                         : value <= objective.goal;
}

bool Better(Metric metric, double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return metric == Metric::kValidationAccuracy ? a > b : a < b;
}

void Summarize(const std::vector<EpochPoint>& points, const Objective& objective, Trial* trial) {
  std::map<int, EpochPoint> by_epoch;
  for (const EpochPoint& p : points) by_epoch[p.epoch] = p;
  trial->epochs = by_epoch.empty() ? 0 : by_epoch.rbegin()->first;
  trial->best_validation_loss = kNaN;
  trial->best_validation_accuracy = kNaN;
  trial->time_to_goal_seconds = kNaN;
  trial->wall_time_to_goal_seconds = kNaN;
  for (const auto& [epoch, p] : by_epoch) {
    trial->best_validation_loss =
        BetterOf(Metric::kValidationLoss, trial->best_validation_loss, p.validation_loss);
    trial->best_validation_accuracy = BetterOf(
        Metric::kValidationAccuracy, trial->best_validation_accuracy, p.validation_accuracy);
    if (std::isnan(trial->time_to_goal_seconds) &&
        ReachesGoal(objective, MetricOf(p, objective.metric))) {
      trial->time_to_goal_seconds = p.training_seconds;
      trial->wall_time_to_goal_seconds = p.wall_seconds;
    }
  }
}

int BestTrial(const std::vector<Trial>& trials, const Objective& objective) {
  int best = -1;
  if (objective.has_goal) {
    for (size_t i = 0; i < trials.size(); ++i) {
      double t = trials[i].time_to_goal_seconds;
      if (!std::isnan(t) && (best < 0 || t < trials[best].time_to_goal_seconds)) {
        best = static_cast<int>(i);
      }
    }
    if (best >= 0) return best;
  }
  for (size_t i = 0; i < trials.size(); ++i) {
    double v = BestOfTrial(trials[i], objective.metric);
    double current = best < 0 ? kNaN : BestOfTrial(trials[best], objective.metric);
    if (Better(objective.metric, v, current)) best = static_cast<int>(i);
  }
  return best;
}

bool ShouldStopByMedian(const SweepSpec& spec, const std::vector<std::vector<EpochPoint>>& history,
                        int trial) {
  if (!spec.median_stopping || trial < 0 || static_cast<size_t>(trial) >= history.size()) {
    return false;
  }
  Metric metric = spec.objective.metric;
  int epoch = LastEpoch(history[trial]);
  double own = BestUpTo(history[trial], metric, epoch);
  if (epoch == 0 || std::isnan(own)) return false;
  std::vector<double> others;
  for (size_t i = 0; i < history.size(); ++i) {
    if (static_cast<int>(i) == trial || LastEpoch(history[i]) < epoch) continue;
    double best = BestUpTo(history[i], metric, epoch);
    if (!std::isnan(best)) others.push_back(best);
  }
  if (others.empty() || static_cast<int>(others.size()) < spec.median_stopping_min_trials) {
    return false;
  }
  return Better(metric, Median(others), own);
}

Counts CountTrials(const std::vector<Trial>& trials) {
  Counts c;
  c.trials = static_cast<int>(trials.size());
  for (const Trial& t : trials) {
    switch (t.phase) {
      case TrialPhase::kPending:
        ++c.pending;
        break;
      case TrialPhase::kRunning:
        ++c.running;
        break;
      case TrialPhase::kSucceeded:
        ++c.succeeded;
        break;
      case TrialPhase::kFailed:
        ++c.failed;
        break;
      case TrialPhase::kStopped:
        ++c.stopped;
        break;
    }
  }
  return c;
}

std::vector<int> TrialsToStart(const SweepSpec& spec, int total, const std::vector<bool>& created,
                               const std::vector<Trial>& trials) {
  std::vector<int> out;
  std::string reason;
  if (DecideSweepPhase(spec, total, trials, &reason) == SweepPhase::kFailed) return out;
  Counts c = CountTrials(trials);
  int free_slots = spec.parallel_trial_count - c.pending - c.running;
  for (int i = 0; i < total && static_cast<int>(out.size()) < free_slots; ++i) {
    if (static_cast<size_t>(i) >= created.size() || !created[i]) out.push_back(i);
  }
  return out;
}

const char* SweepPhaseName(SweepPhase phase) {
  switch (phase) {
    case SweepPhase::kCreated:
      return "Created";
    case SweepPhase::kRunning:
      return "Running";
    case SweepPhase::kSucceeded:
      return "Succeeded";
    case SweepPhase::kFailed:
      return "Failed";
  }
  return "Created";
}

SweepPhase DecideSweepPhase(const SweepSpec& spec, int total, const std::vector<Trial>& trials,
                            std::string* reason) {
  Counts c = CountTrials(trials);
  int finished = c.succeeded + c.failed + c.stopped;
  std::string tally = std::to_string(c.succeeded) + " succeeded, " + std::to_string(c.failed) +
                      " failed, " + std::to_string(c.stopped) + " stopped";
  if (spec.max_failed_trial_count > 0 && c.failed > spec.max_failed_trial_count) {
    *reason = std::to_string(c.failed) + " trials failed (maxFailedTrialCount " +
              std::to_string(spec.max_failed_trial_count) + ")";
    return SweepPhase::kFailed;
  }
  if (total <= 0) {
    *reason = "the sweep has no trials";
    return SweepPhase::kFailed;
  }
  if (c.trials >= total && finished == c.trials) {
    if (c.succeeded + c.stopped == 0) {
      *reason = "all " + std::to_string(c.trials) + " trials failed";
      return SweepPhase::kFailed;
    }
    *reason = "all " + std::to_string(c.trials) + " trials finished (" + tally + ")";
    return SweepPhase::kSucceeded;
  }
  if (c.trials > 0) {
    *reason = std::to_string(c.running) + " running, " + std::to_string(c.pending) + " pending, " +
              std::to_string(finished) + " of " + std::to_string(total) + " finished (" + tally +
              ")";
    return SweepPhase::kRunning;
  }
  *reason = "no trial created yet";
  return SweepPhase::kCreated;
}

}  // namespace petname::sweep
