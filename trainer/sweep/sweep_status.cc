#include "trainer/sweep/sweep_status.h"

#include <cmath>

namespace petname::sweep {
namespace {

using Json = nlohmann::json;

Json Number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

double NumberOr(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : kNaN;
}

Json PointToJson(const EpochPoint& p) {
  return {{"epoch", p.epoch},
          {"training_seconds", Number(p.training_seconds)},
          {"wall_seconds", Number(p.wall_seconds)},
          {"val_loss", Number(p.validation_loss)},
          {"val_accuracy", Number(p.validation_accuracy)}};
}

Json TrialToJson(const TrialRecord& r) {
  const Trial& t = r.trial;
  Json parameters = Json::object();
  for (const auto& [name, value] : t.parameters) parameters[name] = value.ToJson();
  Json points = Json::array();
  for (const EpochPoint& p : r.points) points.push_back(PointToJson(p));
  return {{"name", t.name},
          {"parameters", parameters},
          {"phase", TrialPhaseName(t.phase)},
          {"epochs", t.epochs},
          {"val_loss", Number(t.best_validation_loss)},
          {"val_accuracy", Number(t.best_validation_accuracy)},
          {"samples_per_second", Number(t.samples_per_second)},
          {"wall_seconds", Number(t.wall_seconds)},
          {"time_to_goal_seconds", Number(t.time_to_goal_seconds)},
          {"wall_time_to_goal_seconds", Number(t.wall_time_to_goal_seconds)},
          {"message", t.message},
          {"ranks", r.ranks > 0 ? Json(r.ranks) : Json(nullptr)},
          {"batch_size_per_rank",
           r.batch_size_per_rank > 0 ? Json(r.batch_size_per_rank) : Json(nullptr)},
          {"points", points}};
}

Status TrialFromJson(const Json& j, TrialRecord* out) {
  if (!j.is_object() || !j.value("name", Json()).is_string()) {
    return Status::Corruption("sweep.json: a trial without a name");
  }
  Trial& t = out->trial;
  t.name = j["name"].get<std::string>();
  if (!TrialPhaseFromName(j.value("phase", ""), &t.phase)) {
    return Status::Corruption("sweep.json: trial " + t.name + " has an unknown phase");
  }
  const Json parameters = j.value("parameters", Json::object());
  for (const auto& [name, value] : parameters.items()) {
    Value v;
    if (!Value::FromJson(value, &v)) {
      return Status::Corruption("sweep.json: trial " + t.name + " parameter " + name);
    }
    t.parameters.emplace_back(name, v);
  }
  t.epochs = j.value("epochs", 0);
  t.best_validation_loss = NumberOr(j, "val_loss");
  t.best_validation_accuracy = NumberOr(j, "val_accuracy");
  t.samples_per_second = NumberOr(j, "samples_per_second");
  t.wall_seconds = NumberOr(j, "wall_seconds");
  t.time_to_goal_seconds = NumberOr(j, "time_to_goal_seconds");
  t.wall_time_to_goal_seconds = NumberOr(j, "wall_time_to_goal_seconds");
  t.message = j.value("message", "");
  const double ranks = NumberOr(j, "ranks");
  const double batch = NumberOr(j, "batch_size_per_rank");
  out->ranks = std::isfinite(ranks) ? static_cast<int>(ranks) : 0;
  out->batch_size_per_rank = std::isfinite(batch) ? static_cast<int64_t>(batch) : 0;
  for (const Json& p : j.value("points", Json::array())) {
    if (!p.is_object()) continue;
    EpochPoint point;
    point.epoch = p.value("epoch", 0);
    point.training_seconds = NumberOr(p, "training_seconds");
    point.wall_seconds = NumberOr(p, "wall_seconds");
    point.validation_loss = NumberOr(p, "val_loss");
    point.validation_accuracy = NumberOr(p, "val_accuracy");
    out->points.push_back(point);
  }
  return Status::Ok();
}

}  // namespace

UntrustedFileRules SweepFileRules() {
  UntrustedFileRules rules;
  rules.max_bytes = int64_t{64} << 20;
  rules.what = "sweep file";
  return rules;
}

Json SweepStatusToJson(const SweepStatus& status) {
  std::vector<Trial> rows;
  Json trials = Json::array();
  for (const TrialRecord& r : status.trials) {
    trials.push_back(TrialToJson(r));
    rows.push_back(r.trial);
  }
  const Counts c = CountTrials(rows);
  const bool has_best = status.best >= 0 && status.best < static_cast<int>(status.trials.size());
  return {{"name", status.name},
          {"algorithm", status.algorithm},
          {"phase", status.phase},
          {"reason", status.reason},
          {"objective",
           {{"metric", MetricName(status.objective.metric)},
            {"goal", status.objective.has_goal ? Json(status.objective.goal) : Json(nullptr)}}},
          {"trials", trials},
          {"best", has_best ? Json(status.trials[status.best].trial.name) : Json(nullptr)},
          {"counts",
           {{"trials", c.trials},
            {"pending", c.pending},
            {"running", c.running},
            {"succeeded", c.succeeded},
            {"failed", c.failed},
            {"stopped", c.stopped}}}};
}

Status SweepStatusFromJson(const Json& json, SweepStatus* out) {
  if (!json.is_object() || !json.value("trials", Json()).is_array()) {
    return Status::Corruption("sweep.json: not a sweep status (no trials list)");
  }
  SweepStatus s;
  s.name = json.value("name", "");
  s.algorithm = json.value("algorithm", "");
  s.phase = json.value("phase", "");
  s.reason = json.value("reason", "");
  const Json objective = json.value("objective", Json::object());
  s.objective.metric = objective.value("metric", "") == MetricName(Metric::kValidationAccuracy)
                           ? Metric::kValidationAccuracy
                           : Metric::kValidationLoss;
  s.objective.has_goal = objective.value("goal", Json()).is_number();
  if (s.objective.has_goal) s.objective.goal = objective["goal"].get<double>();
  const std::string best = json.value("best", Json()).is_string() ? json["best"] : "";
  for (const Json& t : json["trials"]) {
    TrialRecord r;
    PETNAME_RETURN_IF_ERROR(TrialFromJson(t, &r));
    if (r.trial.name == best) s.best = static_cast<int>(s.trials.size());
    s.trials.push_back(std::move(r));
  }
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace petname::sweep
