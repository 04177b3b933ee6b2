#include "operator/sweeps/sweep_desired.h"

#include <algorithm>
#include <functional>
#include <map>

#include "operator/api/conditions.h"
#include "operator/api/job.h"
#include "operator/kube/object.h"
#include "operator/kueue/workload.h"
#include "operator/sweeps/trial_row.h"

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

using TrialJobs = std::map<int, const Json*>;                     // by trial index
using Rows = std::map<int, sweep::Trial>;                         // by trial index
using Histories = std::map<int, std::vector<sweep::EpochPoint>>;  // by trial index

// The trial jobs the sweep controls, by their index among the `total` trials of its spec.
TrialJobs JobsByIndex(const api::Sweep& sw, const std::vector<Json>& trial_jobs, int total) {
  TrialJobs jobs;
  for (const Json& job : trial_jobs) {
    const int index = TrialIndexOf(job, sw.name);
    if (index >= 0 && index < total && kube::IsControlledBy(job, sw.uid)) jobs[index] = &job;
  }
  return jobs;
}

// The rows and histories of the old status, by the index of the trial each one names.
void OldRows(const api::Sweep& sw, int total, Rows* rows, Histories* history) {
  for (size_t k = 0; k < sw.status.trials.size(); ++k) {
    for (int i = 0; i < total; ++i) {
      if (sw.status.trials[k].name != sweep::TrialName(sw.name, i)) continue;
      (*rows)[i] = sw.status.trials[k];
      if (k < sw.status.history.size()) (*history)[i] = sw.status.history[k];
    }
  }
}

// The rows updated from the trial jobs: a started trial whose job is gone has Failed, each job's
// status is observed, and every row carries its trial's assignment.
void ObserveTrials(const api::Sweep& sw, const TrialJobs& jobs,
                   const std::vector<sweep::Assignment>& assignments, Rows* rows,
                   Histories* history) {
  for (auto& [index, row] : *rows) {
    if (jobs.count(index) == 0 && !sweep::IsFinished(row.phase) &&
        row.phase != sweep::TrialPhase::kPending) {
      row.phase = sweep::TrialPhase::kFailed;
      row.message = "the trial job was deleted";
    }
  }
  for (const auto& [index, job] : jobs) {
    sweep::Trial& row = (*rows)[index];
    row.name = sweep::TrialName(sw.name, index);
    ObserveTrialJob(*job, sw.spec.objective.metric, &row, &(*history)[index]);
  }
  for (auto& [index, row] : *rows) row.parameters = assignments[index];
}

// Median stopping: the running trials (with a job) that sweep::ShouldStopByMedian stops, their
// names added to *stop.
void StopByMedian(const api::Sweep& sw, const TrialJobs& jobs, Histories* history, Rows* rows,
                  std::vector<std::string>* stop) {
  std::vector<std::vector<sweep::EpochPoint>> points;
  std::vector<int> order;
  for (const auto& [index, row] : *rows) {
    points.push_back((*history)[index]);
    order.push_back(index);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    sweep::Trial& row = (*rows)[order[k]];
    if (row.phase != sweep::TrialPhase::kRunning || jobs.count(order[k]) == 0) continue;
    if (!sweep::ShouldStopByMedian(sw.spec, points, static_cast<int>(k))) continue;
    row.phase = sweep::TrialPhase::kStopped;
    row.message = "stopped by median stopping after epoch " + std::to_string(row.epochs);
    stop->push_back(row.name);
  }
}

// A failed sweep stops its unfinished trials (Katib users expect it: kubeflow/katib#2061); the
// names of those with a job are added to *stop.
void StopIfFailed(const api::Sweep& sw, int total, const TrialJobs& jobs, Rows* rows,
                  std::vector<std::string>* stop) {
  std::vector<sweep::Trial> observed;
  for (const auto& [index, row] : *rows) observed.push_back(row);
  std::string failure;
  const bool failed =
      sweep::DecideSweepPhase(sw.spec, total, observed, &failure) == sweep::SweepPhase::kFailed;
  for (auto& [index, row] : *rows) {
    if (!failed || sweep::IsFinished(row.phase)) continue;
    row.phase = sweep::TrialPhase::kStopped;
    row.message = "stopped: the sweep failed (" + failure + ")";
    if (jobs.count(index) != 0) stop->push_back(row.name);
  }
}

// The trial jobs to create, added to *create: the Pending rows without a job, then the trials
// sweep::TrialsToStart starts (each gets a row).
void CreateTrials(const api::Sweep& sw, const std::vector<sweep::Assignment>& assignments,
                  const TrialJobs& jobs, Rows* rows, std::vector<Json>* create) {
  const int total = static_cast<int>(assignments.size());
  // A Pending row without a job: its create failed, or the cache lags; create it (again).
  for (const auto& [index, row] : *rows) {
    if (jobs.count(index) == 0 && row.phase == sweep::TrialPhase::kPending) {
      create->push_back(TrialJob(sw, index, assignments[index]));
    }
  }
  std::vector<bool> created(total, false);
  std::vector<sweep::Trial> list;
  for (const auto& [index, row] : *rows) {
    created[index] = true;
    list.push_back(row);
  }
  for (int index : sweep::TrialsToStart(sw.spec, total, created, list)) {
    create->push_back(TrialJob(sw, index, assignments[index]));
    sweep::Trial row;
    row.name = sweep::TrialName(sw.name, index);
    row.parameters = assignments[index];
    (*rows)[index] = row;
  }
}

// The sweep's new status from its rows and histories.
api::SweepStatus NewStatus(const api::Sweep& sw, int total, const Rows& rows, Histories* history,
                           int64_t now) {
  api::SweepStatus st;
  st.conditions = sw.status.conditions;
  st.start_time = sw.status.start_time;
  st.completion_time = sw.status.completion_time;
  for (const auto& [index, row] : rows) {
    st.trials.push_back(row);
    st.history.push_back((*history)[index]);
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
  return st;
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
  const TrialJobs jobs = JobsByIndex(sw, trial_jobs, total);
  Rows rows;
  Histories history;
  OldRows(sw, total, &rows, &history);
  ObserveTrials(sw, jobs, assignments, &rows, &history);
  SweepActions actions;
  if (sw.spec.median_stopping) StopByMedian(sw, jobs, &history, &rows, &actions.stop);
  StopIfFailed(sw, total, jobs, &rows, &actions.stop);
  CreateTrials(sw, assignments, jobs, &rows, &actions.create);
  actions.status = NewStatus(sw, total, rows, &history, now);
  *out = std::move(actions);
  return Status::Ok();
}

}  // namespace petname::controller
