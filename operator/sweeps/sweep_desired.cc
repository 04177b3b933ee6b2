#include "operator/sweeps/sweep_desired.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "operator/api/conditions.h"
#include "operator/api/job.h"
#include "operator/kube/object.h"
#include "operator/kueue/workload.h"
#include "operator/sweeps/sweep_history.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// The trial index of a trial job (its label), or -1.
int TrialIndexOf(const Json& job, const std::string& sweep_name) {
  if (kube::Label(job, api::kSweepNameLabel) != sweep_name) return -1;
  const std::string label = kube::Label(job, api::kTrialIndexLabel);
  if (label.empty() || label.size() > 6 ||
      !std::all_of(label.begin(), label.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoi(label);
}

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

// `row` and `history` (the old status's, or fresh ones) updated from the trial job's status;
// the history as sweep_history.h keeps it for `metric`, the objective's.
void Observe(const Json& job, sweep::Metric metric, sweep::Trial* row,
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

void SetConditions(sweep::SweepPhase phase, const std::string& reason, int64_t now,
                   std::vector<api::Condition>* conds) {
  api::SetCondition(conds, api::kCreated, true, "SweepCreated", "the sweep was admitted", now);
  const bool running = phase == sweep::SweepPhase::kRunning;
  api::SetCondition(conds, api::kRunning, running, running ? "TrialsRunning" : "NoTrialRunning",
                    running ? reason : "", now);
  const bool succeeded = phase == sweep::SweepPhase::kSucceeded;
  const bool failed = phase == sweep::SweepPhase::kFailed;
  if (succeeded || api::FindCondition(*conds, api::kSucceeded) != nullptr) {
    api::SetCondition(conds, api::kSucceeded, succeeded, succeeded ? "AllTrialsFinished" : "",
                      succeeded ? reason : "", now);
  }
  if (failed || api::FindCondition(*conds, api::kFailed) != nullptr) {
    api::SetCondition(conds, api::kFailed, failed, failed ? "SweepFailed" : "",
                      failed ? reason : "", now);
  }
}

}  // namespace

Json TrialJob(const api::Sweep& sw, int index, const sweep::Assignment& assignment) {
  const std::string name = sweep::TrialName(sw.name, index);
  Json spec = sweep::ApplyAssignment(sw.spec.job_template, assignment);
  if (sw.spec.objective.has_goal) {
    spec["training"]["goal"] = {{"metric", sweep::MetricName(sw.spec.objective.metric)},
                                {"value", sw.spec.objective.goal},
                                {"stop", sw.spec.stop_trial_at_goal}};
  }
  // One directory per trial on the template's volume: its checkpoints and metrics.jsonl.
  const Json& ck = sw.spec.job_template.value("checkpoint", Json::object());
  std::string sub = ck.contains("subPath") && ck["subPath"].is_string()
                        ? ck["subPath"].get<std::string>()
                        : std::string();
  spec["checkpoint"]["subPath"] = sub.empty() ? name : sub + "/" + name;
  Json labels = {{api::kNameLabel, api::kAppName},
                 {api::kSweepNameLabel, sw.name},
                 {api::kTrialIndexLabel, std::to_string(index)}};
  // A sweep in a Kueue queue puts each trial in it: its parallelism waits on the queue's quota.
  for (const char* key : {api::kQueueNameLabel, api::kPriorityClassLabel}) {
    if (const std::string value = kube::Label(sw.object, key); !value.empty()) labels[key] = value;
  }
  return {{"apiVersion", api::kApiVersion},
          {"kind", api::kKind},
          {"metadata",
           {{"name", name},
            {"namespace", sw.ns},
            {"labels", std::move(labels)},
            {"ownerReferences", Json::array({kube::ControllerRef(sw.object)})}}},
          {"spec", std::move(spec)}};
}

int64_t PeakTrialPods(const api::Sweep& sw, const std::vector<sweep::Assignment>& assignments) {
  std::vector<int64_t> pods;
  pods.reserve(assignments.size());
  for (const sweep::Assignment& a : assignments) {
    const Json spec = sweep::ApplyAssignment(sw.spec.job_template, a);
    auto replicas = spec.find("replicas");
    pods.push_back(replicas != spec.end() && replicas->is_number_integer()
                       ? std::max<int64_t>(1, replicas->get<int64_t>())
                       : 1);
  }
  std::sort(pods.begin(), pods.end(), std::greater<>());
  const size_t parallel =
      std::min(pods.size(), static_cast<size_t>(std::max(1, sw.spec.parallel_trial_count)));
  int64_t peak = 0;
  for (size_t i = 0; i < parallel; ++i) peak += pods[i];
  return peak;
}

Status CheckSweepPods(const api::Sweep& sw, int64_t max_pods) {
  std::vector<sweep::Assignment> assignments;
  PETNAME_RETURN_IF_ERROR(sweep::ExpandTrials(sw.spec, &assignments));
  const int64_t peak = PeakTrialPods(sw, assignments);
  if (peak <= max_pods) return Status::Ok();
  return Status::InvalidArgument(
      "sweep " + sw.name + ": its " + std::to_string(sw.spec.parallel_trial_count) +
      " parallel trials may run " + std::to_string(peak) + " pods at once, more than the " +
      std::to_string(max_pods) +
      " this operator allows per sweep (--max-pods-per-sweep); lower parallelTrialCount or "
      "replicas");
}

Status DesiredSweep(const api::Sweep& sw, const std::vector<Json>& trial_jobs, int64_t now,
                    SweepActions* out) {
  std::vector<sweep::Assignment> assignments;
  PETNAME_RETURN_IF_ERROR(sweep::ExpandTrials(sw.spec, &assignments));
  const int total = static_cast<int>(assignments.size());

  std::map<int, const Json*> jobs;
  for (const Json& job : trial_jobs) {
    const int index = TrialIndexOf(job, sw.name);
    if (index >= 0 && index < total && kube::IsControlledBy(job, sw.uid)) jobs[index] = &job;
  }
  std::map<int, sweep::Trial> rows;
  std::map<int, std::vector<sweep::EpochPoint>> history;
  for (size_t k = 0; k < sw.status.trials.size(); ++k) {
    for (int i = 0; i < total; ++i) {
      if (sw.status.trials[k].name != sweep::TrialName(sw.name, i)) continue;
      rows[i] = sw.status.trials[k];
      if (k < sw.status.history.size()) history[i] = sw.status.history[k];
    }
  }
  for (auto& [index, row] : rows) {
    if (jobs.count(index) == 0 && !sweep::IsFinished(row.phase) &&
        row.phase != sweep::TrialPhase::kPending) {
      row.phase = sweep::TrialPhase::kFailed;
      row.message = "the trial job was deleted";
    }
  }
  for (const auto& [index, job] : jobs) {
    sweep::Trial& row = rows[index];
    row.name = sweep::TrialName(sw.name, index);
    Observe(*job, sw.spec.objective.metric, &row, &history[index]);
  }
  for (auto& [index, row] : rows) row.parameters = assignments[index];

  SweepActions actions;
  if (sw.spec.median_stopping) {
    std::vector<std::vector<sweep::EpochPoint>> points;
    std::vector<int> order;
    for (const auto& [index, row] : rows) {
      points.push_back(history[index]);
      order.push_back(index);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      sweep::Trial& row = rows[order[k]];
      if (row.phase != sweep::TrialPhase::kRunning || jobs.count(order[k]) == 0) continue;
      if (!sweep::ShouldStopByMedian(sw.spec, points, static_cast<int>(k))) continue;
      row.phase = sweep::TrialPhase::kStopped;
      row.message = "stopped by median stopping after epoch " + std::to_string(row.epochs);
      actions.stop.push_back(row.name);
    }
  }

  // A failed sweep stops its unfinished trials (Katib users expect it: kubeflow/katib#2061).
  std::vector<sweep::Trial> observed;
  for (const auto& [index, row] : rows) observed.push_back(row);
  std::string failure;
  const bool failed =
      sweep::DecideSweepPhase(sw.spec, total, observed, &failure) == sweep::SweepPhase::kFailed;
  for (auto& [index, row] : rows) {
    if (!failed || sweep::IsFinished(row.phase)) continue;
    row.phase = sweep::TrialPhase::kStopped;
    row.message = "stopped: the sweep failed (" + failure + ")";
    if (jobs.count(index) != 0) actions.stop.push_back(row.name);
  }

  // A Pending row without a job: its create failed, or the cache lags; create it (again).
  for (const auto& [index, row] : rows) {
    if (jobs.count(index) == 0 && row.phase == sweep::TrialPhase::kPending) {
      actions.create.push_back(TrialJob(sw, index, assignments[index]));
    }
  }
  std::vector<bool> created(total, false);
  std::vector<sweep::Trial> list;
  for (const auto& [index, row] : rows) {
    created[index] = true;
    list.push_back(row);
  }
  for (int index : sweep::TrialsToStart(sw.spec, total, created, list)) {
    actions.create.push_back(TrialJob(sw, index, assignments[index]));
    sweep::Trial row;
    row.name = sweep::TrialName(sw.name, index);
    row.parameters = assignments[index];
    rows[index] = row;
  }

  api::SweepStatus& st = actions.status;
  st.conditions = sw.status.conditions;
  st.start_time = sw.status.start_time;
  st.completion_time = sw.status.completion_time;
  for (const auto& [index, row] : rows) {
    st.trials.push_back(row);
    st.history.push_back(history[index]);
  }
  st.counts = sweep::CountTrials(st.trials);
  const int best = sweep::BestTrial(st.trials, sw.spec.objective);
  if (best >= 0) st.best_trial = st.trials[best].name;
  std::string reason;
  st.phase = sweep::DecideSweepPhase(sw.spec, total, st.trials, &reason);
  if (!st.start_time && !st.trials.empty()) st.start_time = now;
  const bool finished =
      st.phase == sweep::SweepPhase::kSucceeded || st.phase == sweep::SweepPhase::kFailed;
  if (finished && !st.completion_time) st.completion_time = now;
  SetConditions(st.phase, reason, now, &st.conditions);
  st.observed_generation = sw.generation;
  *out = std::move(actions);
  return Status::Ok();
}

}  // namespace petname::controller
