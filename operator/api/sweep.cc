#include "operator/api/sweep.h"

#include <cmath>

#include "operator/api/fields.h"
#include "operator/api/names.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

constexpr sweep::SweepPhase kSweepPhases[] = {
    sweep::SweepPhase::kCreated, sweep::SweepPhase::kRunning, sweep::SweepPhase::kSucceeded,
    sweep::SweepPhase::kFailed};

using fields::PutNumber;
using fields::PutTime;
using fields::String;
using fields::Time;

// The sweep's rows hold plain ints and NaN for "none".
int Int(const Json& obj, const char* key) { return static_cast<int>(fields::Int(obj, key)); }
double Number(const Json& obj, const char* key) {
  return fields::Number(obj, key).value_or(sweep::kNaN);
}

sweep::Trial TrialFromJson(const Json& t) {
  sweep::Trial out;
  out.name = String(t, "name");
  auto params = t.find("parameters");
  if (params != t.end() && params->is_object()) {
    for (const auto& [name, v] : params->items()) {
      sweep::Value value;
      if (sweep::Value::FromJson(v, &value)) out.parameters.emplace_back(name, value);
    }
  }
  if (!sweep::TrialPhaseFromName(String(t, "phase"), &out.phase)) {
    out.phase = sweep::TrialPhase::kPending;
  }
  out.epochs = Int(t, "epochs");
  out.best_validation_loss = Number(t, "bestValidationLoss");
  out.best_validation_accuracy = Number(t, "bestValidationAccuracy");
  out.samples_per_second = Number(t, "samplesPerSecond");
  out.wall_seconds = Number(t, "wallSeconds");
  out.time_to_goal_seconds = Number(t, "timeToGoalSeconds");
  out.wall_time_to_goal_seconds = Number(t, "wallTimeToGoalSeconds");
  out.message = String(t, "message");
  return out;
}

// A number of a history's value list; null (a point without that metric) reads as NaN.
double ValueAt(const Json& values, size_t i) {
  return values.is_array() && i < values.size() && values[i].is_number() ? values[i].get<double>()
                                                                         : sweep::kNaN;
}

std::vector<sweep::EpochPoint> HistoryFromJson(const Json& t) {
  std::vector<sweep::EpochPoint> out;
  auto history = t.find("history");
  if (history == t.end()) return out;
  if (history->is_array()) {  // [{epoch, validationLoss, validationAccuracy}], older operators'
    for (const Json& h : *history) {
      if (!h.is_object()) continue;
      sweep::EpochPoint point;
      point.epoch = Int(h, "epoch");
      point.validation_loss = Number(h, "validationLoss");
      point.validation_accuracy = Number(h, "validationAccuracy");
      out.push_back(point);
    }
    return out;
  }
  if (!history->is_object()) return out;
  const Json epochs = history->value("epochs", Json::array());
  const Json loss = history->value("validationLoss", Json::array());
  const Json accuracy = history->value("validationAccuracy", Json::array());
  if (!epochs.is_array()) return out;
  for (size_t i = 0; i < epochs.size(); ++i) {
    if (!epochs[i].is_number_integer()) continue;
    sweep::EpochPoint point;
    point.epoch = epochs[i].get<int>();
    point.validation_loss = ValueAt(loss, i);
    point.validation_accuracy = ValueAt(accuracy, i);
    out.push_back(point);
  }
  return out;
}

// {epochs: [...], validationLoss: [...], validationAccuracy: [...]}: parallel lists, a metric's
// left out when no point has it, null where one point lacks it.
Json HistoryToJson(const std::vector<sweep::EpochPoint>& history) {
  Json epochs = Json::array(), loss = Json::array(), accuracy = Json::array();
  bool any_loss = false, any_accuracy = false;
  for (const sweep::EpochPoint& point : history) {
    epochs.push_back(point.epoch);
    const bool has_loss = std::isfinite(point.validation_loss);
    const bool has_accuracy = std::isfinite(point.validation_accuracy);
    loss.push_back(has_loss ? Json(point.validation_loss) : Json());
    accuracy.push_back(has_accuracy ? Json(point.validation_accuracy) : Json());
    any_loss = any_loss || has_loss;
    any_accuracy = any_accuracy || has_accuracy;
  }
  Json out = {{"epochs", std::move(epochs)}};
  if (any_loss) out["validationLoss"] = std::move(loss);
  if (any_accuracy) out["validationAccuracy"] = std::move(accuracy);
  return out;
}

Json TrialToJson(const sweep::Trial& t) {
  Json params = Json::object();
  for (const auto& [name, value] : t.parameters) params[name] = value.ToJson();
  Json out = {{"name", t.name},
              {"parameters", std::move(params)},
              {"phase", sweep::TrialPhaseName(t.phase)},
              {"epochs", t.epochs}};
  PutNumber(&out, "bestValidationLoss", t.best_validation_loss);
  PutNumber(&out, "bestValidationAccuracy", t.best_validation_accuracy);
  PutNumber(&out, "samplesPerSecond", t.samples_per_second);
  PutNumber(&out, "wallSeconds", t.wall_seconds);
  PutNumber(&out, "timeToGoalSeconds", t.time_to_goal_seconds);
  PutNumber(&out, "wallTimeToGoalSeconds", t.wall_time_to_goal_seconds);
  if (!t.message.empty()) out["message"] = t.message;
  return out;
}

}  // namespace

SweepStatus SweepStatusFromJson(const Json& status) {
  SweepStatus out;
  if (!status.is_object()) return out;
  const std::string phase = String(status, "phase");
  for (sweep::SweepPhase p : kSweepPhases) {
    if (phase == sweep::SweepPhaseName(p)) out.phase = p;
  }
  auto conds = status.find("conditions");
  if (conds != status.end() && conds->is_array()) {
    for (const Json& c : *conds) {
      if (c.is_object()) out.conditions.push_back(ConditionFromJson(c));
    }
  }
  out.counts.trials = Int(status, "trials");
  out.counts.pending = Int(status, "trialsPending");
  out.counts.running = Int(status, "trialsRunning");
  out.counts.succeeded = Int(status, "trialsSucceeded");
  out.counts.failed = Int(status, "trialsFailed");
  out.counts.stopped = Int(status, "trialsStopped");
  out.best_trial = String(status, "bestTrial");
  auto trials = status.find("trialStatuses");
  if (trials != status.end() && trials->is_array()) {
    for (const Json& t : *trials) {
      if (!t.is_object()) continue;
      out.trials.push_back(TrialFromJson(t));
      out.history.push_back(HistoryFromJson(t));
    }
  }
  out.start_time = Time(status, "startTime");
  out.completion_time = Time(status, "completionTime");
  out.observed_generation = fields::Int(status, "observedGeneration");
  return out;
}

Json SweepStatusToJson(const SweepStatus& s) {
  Json out = {{"phase", sweep::SweepPhaseName(s.phase)}};
  Json conds = Json::array();
  for (const Condition& c : s.conditions) conds.push_back(ConditionToJson(c));
  out["conditions"] = std::move(conds);
  out["trials"] = s.counts.trials;
  out["trialsPending"] = s.counts.pending;
  out["trialsRunning"] = s.counts.running;
  out["trialsSucceeded"] = s.counts.succeeded;
  out["trialsFailed"] = s.counts.failed;
  out["trialsStopped"] = s.counts.stopped;
  if (!s.best_trial.empty()) out["bestTrial"] = s.best_trial;
  Json trials = Json::array();
  for (size_t i = 0; i < s.trials.size(); ++i) {
    Json t = TrialToJson(s.trials[i]);
    if (i < s.history.size() && !s.history[i].empty()) t["history"] = HistoryToJson(s.history[i]);
    trials.push_back(std::move(t));
  }
  out["trialStatuses"] = std::move(trials);
  PutTime(&out, "startTime", s.start_time);
  PutTime(&out, "completionTime", s.completion_time);
  out["observedGeneration"] = s.observed_generation;
  return out;
}

Status SweepFromJson(const Json& obj, Sweep* out) {
  if (!obj.is_object()) return Status::InvalidArgument("sweep: not a JSON object");
  Sweep sw;
  const Json meta = obj.value("metadata", Json::object());
  sw.name = meta.value("name", "");
  sw.ns = meta.value("namespace", "");
  sw.uid = meta.value("uid", "");
  sw.generation = meta.value("generation", int64_t{0});
  if (sw.name.empty()) return Status::InvalidArgument("sweep: metadata.name is empty");
  Status named = CheckObjectName(sw.name, kMaxSweepName);
  if (!named.ok()) return Status::InvalidArgument("sweep: " + named.message());
  auto spec = obj.find("spec");
  if (spec == obj.end() || !spec->is_object()) {
    return Status::InvalidArgument("sweep " + sw.name + ": spec is missing");
  }
  Status s = sweep::SweepSpecFromJson(*spec, &sw.spec);
  if (!s.ok()) return Status::InvalidArgument("sweep " + sw.name + ": " + s.message());
  auto status = obj.find("status");
  if (status != obj.end()) sw.status = SweepStatusFromJson(*status);
  sw.object = obj;
  *out = std::move(sw);
  return Status::Ok();
}

}  // namespace petname::api
