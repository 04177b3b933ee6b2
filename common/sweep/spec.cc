#include "common/sweep/spec.h"

#include <set>
#include <utility>

#include "common/sweep/expand.h"

namespace petname::sweep {
namespace {

std::string Num(double x) {
  Value v;
  v.number = x;
  return v.ToString();
}

// The allowed values of a text parameter, as "a or b" for messages.
const std::vector<std::string>& TextChoices(const std::string& parameter) {
  static const std::vector<std::string> kPrecision = {"fp32", "bf16"};
  static const std::vector<std::string> kSchedule = {"constant", "cosine"};
  return parameter == "training.precision" ? kPrecision : kSchedule;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? sep : "") + items[i];
  return out;
}

Status Refuse(const std::string& path, const std::string& problem) {
  return Status::InvalidArgument(path + ": " + problem);
}

// Refuses keys of `object` outside `known` (a typo would otherwise be silently ignored).
Status CheckKeys(const Json& object, const std::string& path,
                 const std::vector<std::string>& known) {
  for (const auto& item : object.items()) {
    bool found = false;
    for (const auto& k : known) found = found || k == item.key();
    if (!found) return Refuse(path + "." + item.key(), "unknown field");
  }
  return Status::Ok();
}

// A numeric JSON value of a parameter of kind `kind` (kInteger or kReal).
Status ParseNumber(const Json& j, ValueKind kind, const std::string& path, double* out) {
  if (!j.is_number()) return Refuse(path, j.dump() + " is not a number");
  double x = j.get<double>();
  if (kind == ValueKind::kInteger && !IsWholeNumber(x)) {
    return Refuse(path, j.dump() + " is not an integer");
  }
  *out = x;
  return Status::Ok();
}

Status ParseValue(const Json& j, const std::string& parameter, const std::string& path,
                  Value* out) {
  ValueKind kind = KindOf(parameter);
  if (kind != ValueKind::kText) return ParseNumber(j, kind, path, &out->number);
  const auto& choices = TextChoices(parameter);
  bool known = false;
  if (j.is_string()) {
    for (const auto& c : choices) known = known || c == j.get<std::string>();
  }
  if (!known) return Refuse(path, j.dump() + " is not " + Join(choices, " or "));
  out->is_text = true;
  out->text = j.get<std::string>();
  return Status::Ok();
}

Status ParseRange(const Json& j, Algorithm algorithm, const std::string& path, Parameter* p) {
  ValueKind kind = KindOf(p->name);
  if (kind == ValueKind::kText) {
    return Refuse(path, p->name + " takes values, not a range (min, max)");
  }
  if (!j.contains("min") || !j.contains("max")) {
    return Refuse(path, "give either values or min and max");
  }
  p->is_range = true;
  PETNAME_RETURN_IF_ERROR(ParseNumber(j["min"], kind, path + ".min", &p->min));
  PETNAME_RETURN_IF_ERROR(ParseNumber(j["max"], kind, path + ".max", &p->max));
  if (p->min > p->max) return Refuse(path, "min " + Num(p->min) + " > max " + Num(p->max));
  if (j.contains("step")) {
    PETNAME_RETURN_IF_ERROR(ParseNumber(j["step"], kind, path + ".step", &p->step));
    if (p->step <= 0) return Refuse(path + ".step", "must be > 0");
  } else if (algorithm == Algorithm::kGrid) {
    return Refuse(path + ".step", "required for a grid range");
  }
  if (j.contains("scale")) {
    const Json& s = j["scale"];
    if (s == "linear") {
      p->scale = Scale::kLinear;
    } else if (s == "log") {
      p->scale = Scale::kLog;
    } else {
      return Refuse(path + ".scale", s.dump() + " is not linear or log");
    }
  }
  if (algorithm == Algorithm::kRandom && p->scale == Scale::kLog && p->min <= 0) {
    return Refuse(path + ".min", "must be > 0 for scale log");
  }
  return Status::Ok();
}

Status ParseParameter(const Json& j, Algorithm algorithm, const std::string& path, Parameter* p) {
  if (!j.is_object()) return Refuse(path, "must be an object");
  PETNAME_RETURN_IF_ERROR(CheckKeys(j, path, {"name", "values", "min", "max", "step", "scale"}));
  if (!j.contains("name") || !j["name"].is_string()) {
    return Refuse(path + ".name", "required (a text)");
  }
  p->name = j["name"].get<std::string>();
  const auto& known = KnownParameters();
  bool is_known = false;
  for (const auto& k : known) is_known = is_known || k == p->name;
  if (!is_known) {
    return Refuse(path + ".name",
                  "unknown parameter \"" + p->name + "\" (known: " + Join(known, ", ") + ")");
  }
  if (!j.contains("values")) return ParseRange(j, algorithm, path, p);
  if (j.contains("min") || j.contains("max") || j.contains("step") || j.contains("scale")) {
    return Refuse(path, "give either values or min and max");
  }
  const Json& values = j["values"];
  if (!values.is_array()) return Refuse(path + ".values", "must be a list");
  if (values.empty()) return Refuse(path + ".values", "must not be empty");
  for (size_t i = 0; i < values.size(); ++i) {
    Value v;
    PETNAME_RETURN_IF_ERROR(
        ParseValue(values[i], p->name, path + ".values[" + std::to_string(i) + "]", &v));
    p->values.push_back(v);
  }
  return Status::Ok();
}

// An integer field `key` of `j` into *out when present; refused below `minimum`.
Status ParseCount(const Json& j, const char* key, const std::string& path, int64_t minimum,
                  int64_t* out) {
  if (!j.contains(key)) return Status::Ok();
  const Json& v = j[key];
  if (!v.is_number() || !IsWholeNumber(v.get<double>())) {
    return Refuse(path, "must be an integer");
  }
  if (v.get<double>() < static_cast<double>(minimum)) {
    return Refuse(path, "must be >= " + std::to_string(minimum));
  }
  *out = static_cast<int64_t>(v.get<double>());
  return Status::Ok();
}

// A count that also fits the limits of a trial count (at most kMaxGridTrials).
Status ParseTrialCount(const Json& j, const char* key, int64_t minimum, int* out) {
  const std::string path = std::string("spec.") + key;
  int64_t value = *out;
  PETNAME_RETURN_IF_ERROR(ParseCount(j, key, path, minimum, &value));
  if (value > kMaxGridTrials) {
    return Refuse(path, "must be <= " + std::to_string(kMaxGridTrials));
  }
  *out = static_cast<int>(value);
  return Status::Ok();
}

Status ParseObjective(const Json& j, Objective* out) {
  if (!j.is_object()) return Refuse("spec.objective", "must be an object");
  PETNAME_RETURN_IF_ERROR(CheckKeys(j, "spec.objective", {"metric", "goal"}));
  if (j.contains("metric")) {
    const Json& m = j["metric"];
    if (m == MetricName(Metric::kValidationLoss)) {
      out->metric = Metric::kValidationLoss;
    } else if (m == MetricName(Metric::kValidationAccuracy)) {
      out->metric = Metric::kValidationAccuracy;
    } else {
      return Refuse("spec.objective.metric",
                    "unknown metric " + m.dump() + " (validationLoss or validationAccuracy)");
    }
  }
  if (!j.contains("goal")) return Status::Ok();
  if (!j["goal"].is_number()) return Refuse("spec.objective.goal", "must be a number");
  out->has_goal = true;
  out->goal = j["goal"].get<double>();
  bool accuracy = out->metric == Metric::kValidationAccuracy;
  if (accuracy ? (out->goal < 0 || out->goal > 1) : out->goal < 0) {
    return Refuse("spec.objective.goal", Num(out->goal) + " is outside " + MetricName(out->metric) +
                                             "'s range " + (accuracy ? "[0, 1]" : "[0, inf)"));
  }
  return Status::Ok();
}

Status ParseEarlyStopping(const Json& j, SweepSpec* out) {
  if (!j.is_object()) return Refuse("spec.earlyStopping", "must be an object");
  PETNAME_RETURN_IF_ERROR(CheckKeys(j, "spec.earlyStopping", {"algorithm", "minTrialsRequired"}));
  if (!j.contains("algorithm"))
    return Refuse("spec.earlyStopping.algorithm", "required (medianStop)");
  if (j["algorithm"] != "medianStop") {
    return Refuse("spec.earlyStopping.algorithm",
                  "unknown algorithm " + j["algorithm"].dump() + " (medianStop)");
  }
  out->median_stopping = true;
  int64_t min_trials = out->median_stopping_min_trials;
  PETNAME_RETURN_IF_ERROR(
      ParseCount(j, "minTrialsRequired", "spec.earlyStopping.minTrialsRequired", 1, &min_trials));
  if (min_trials > kMaxGridTrials) {
    return Refuse("spec.earlyStopping.minTrialsRequired",
                  "must be <= " + std::to_string(kMaxGridTrials));
  }
  out->median_stopping_min_trials = static_cast<int>(min_trials);
  return Status::Ok();
}

Status ParseParameters(const Json& j, SweepSpec* out) {
  if (!j.is_array() || j.empty()) return Refuse("spec.parameters", "must be a non-empty list");
  std::set<std::string> names;
  double grid = 1;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string path = "spec.parameters[" + std::to_string(i) + "]";
    Parameter p;
    PETNAME_RETURN_IF_ERROR(ParseParameter(j[i], out->algorithm, path, &p));
    if (!names.insert(p.name).second) {
      return Refuse(path + ".name", "duplicate parameter \"" + p.name + "\"");
    }
    grid *= static_cast<double>(GridSize(p));
    out->parameters.push_back(p);
  }
  if (out->algorithm == Algorithm::kGrid && grid > static_cast<double>(kMaxGridTrials)) {
    return Refuse("spec.parameters", "the grid has " + Num(grid) + " trials (at most " +
                                         std::to_string(kMaxGridTrials) + ")");
  }
  return Status::Ok();
}

}  // namespace

const char* MetricName(Metric metric) {
  return metric == Metric::kValidationAccuracy ? "validationAccuracy" : "validationLoss";
}

Status SweepSpecFromJson(const Json& spec, SweepSpec* out) {
  if (!spec.is_object()) return Refuse("spec", "must be an object");
  PETNAME_RETURN_IF_ERROR(CheckKeys(
      spec, "spec",
      {"template", "parameters", "algorithm", "seed", "parallelTrialCount", "maxTrialCount",
       "maxFailedTrialCount", "objective", "stopTrialAtGoal", "earlyStopping"}));
  SweepSpec s;
  if (!spec.contains("template")) return Refuse("spec.template", "required (a job spec)");
  if (!spec["template"].is_object()) return Refuse("spec.template", "must be an object");
  s.job_template = spec["template"];
  if (spec.contains("algorithm")) {
    const Json& a = spec["algorithm"];
    if (a == "grid") {
      s.algorithm = Algorithm::kGrid;
    } else if (a == "random") {
      s.algorithm = Algorithm::kRandom;
    } else {
      return Refuse("spec.algorithm", "unknown algorithm " + a.dump() + " (grid or random)");
    }
  }
  if (spec.contains("seed")) {
    const Json& seed = spec["seed"];
    if (!seed.is_number_integer()) return Refuse("spec.seed", "must be an integer");
    s.seed = seed.get<int64_t>();
  }
  if (!spec.contains("parameters")) return Refuse("spec.parameters", "must be a non-empty list");
  PETNAME_RETURN_IF_ERROR(ParseParameters(spec["parameters"], &s));
  PETNAME_RETURN_IF_ERROR(ParseTrialCount(spec, "parallelTrialCount", 1, &s.parallel_trial_count));
  PETNAME_RETURN_IF_ERROR(ParseTrialCount(spec, "maxTrialCount", 1, &s.max_trial_count));
  PETNAME_RETURN_IF_ERROR(
      ParseTrialCount(spec, "maxFailedTrialCount", 0, &s.max_failed_trial_count));
  if (spec.contains("objective"))
    PETNAME_RETURN_IF_ERROR(ParseObjective(spec["objective"], &s.objective));
  if (spec.contains("stopTrialAtGoal")) {
    if (!spec["stopTrialAtGoal"].is_boolean()) {
      return Refuse("spec.stopTrialAtGoal", "must be true or false");
    }
    s.stop_trial_at_goal = spec["stopTrialAtGoal"].get<bool>();
    if (s.stop_trial_at_goal && !s.objective.has_goal) {
      return Refuse("spec.stopTrialAtGoal", "needs spec.objective.goal");
    }
  }
  if (spec.contains("earlyStopping"))
    PETNAME_RETURN_IF_ERROR(ParseEarlyStopping(spec["earlyStopping"], &s));
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace petname::sweep
