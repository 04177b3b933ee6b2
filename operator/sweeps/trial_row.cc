#include "operator/sweeps/trial_row.h"

#include <algorithm>
#include <cmath>

#include "operator/api/conditions.h"
#include "operator/api/job.h"
#include "operator/sweeps/sweep_history.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

sweep::TrialPhase TrialPhaseOf(const Json& job, const api::JobStatus& status) {
  if (job.value("spec", Json::object())
          .value("runPolicy", Json::object())
          .value("suspend", false)) {
    return sweep::TrialPhase::kStopped;
  }
  switch (status.phase) {
    case api::JobPhase::kRunning:
    case api::JobPhase::kRestarting:
      return sweep::TrialPhase::kRunning;
    case api::JobPhase::kSucceeded:
      return sweep::TrialPhase::kSucceeded;
    case api::JobPhase::kFailed:
      return sweep::TrialPhase::kFailed;
    case api::JobPhase::kSuspended:
      return sweep::TrialPhase::kStopped;
    default:
      return sweep::TrialPhase::kPending;
  }
}

double Min(double a, double b) { return std::isnan(a) ? b : (std::isnan(b) ? a : std::min(a, b)); }
double Max(double a, double b) { return std::isnan(a) ? b : (std::isnan(b) ? a : std::max(a, b)); }

}  // namespace

void ObserveTrialJob(const Json& job, sweep::Metric metric, sweep::Trial* row,
                     std::vector<sweep::EpochPoint>* history) {
  const api::JobStatus st = api::JobStatusFromJson(job.value("status", Json::object()));
  if (!sweep::IsFinished(row->phase)) row->phase = TrialPhaseOf(job, st);
  if (row->phase == sweep::TrialPhase::kFailed && row->message.empty()) {
    const api::Condition* failed = api::FindCondition(st.conditions, api::kFailed);
    if (failed != nullptr) row->message = failed->message;
  }
  if (st.start_time && st.completion_time) {
    row->wall_seconds =
        static_cast<double>(std::max<int64_t>(0, *st.completion_time - *st.start_time));
  }
  if (!st.progress) return;
  const api::Progress& p = *st.progress;
  if (p.epoch > 0 && (history->empty() || history->back().epoch < p.epoch)) {
    sweep::EpochPoint point;
    point.epoch = static_cast<int>(p.epoch);
    point.validation_loss = p.validation_loss.value_or(sweep::kNaN);
    point.validation_accuracy = p.validation_accuracy.value_or(sweep::kNaN);
    history->push_back(KeptPoint(metric, point));
    CompactHistory(metric, history);
  }
  row->epochs = std::max(row->epochs, static_cast<int>(p.epoch));
  if (p.validation_loss)
    row->best_validation_loss = Min(row->best_validation_loss, *p.validation_loss);
  if (p.validation_accuracy) {
    row->best_validation_accuracy = Max(row->best_validation_accuracy, *p.validation_accuracy);
  }
  if (p.samples_per_second) row->samples_per_second = *p.samples_per_second;
  if (p.goal_reached_training_seconds && std::isnan(row->time_to_goal_seconds)) {
    row->time_to_goal_seconds = *p.goal_reached_training_seconds;
  }
  if (p.goal_reached_time && st.start_time && std::isnan(row->wall_time_to_goal_seconds)) {
    row->wall_time_to_goal_seconds =
        static_cast<double>(std::max<int64_t>(0, *p.goal_reached_time - *st.start_time));
  }
}

}  // namespace petname::controller
