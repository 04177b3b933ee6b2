// A sweep (PetNameTrainingSweep's spec, and the YAML of `petname sweep`): a PetNameTrainingJob
// spec every trial starts from, the parameters to vary, how to pick their values (grid or
// seeded random), how many trials run at once, and the objective trials are compared by.
// Field names and meaning follow Katib's Experiment where it has one (parallelTrialCount,
// maxTrialCount, maxFailedTrialCount, objective.goal).
//
// This module is pure: JSON in, typed spec out; no I/O. The CRD's CEL rules
// (crds/petname.dev_petnametrainingsweeps.yaml) refuse the same mistakes with the same words,
// so a sweep the API server admits parses here, and `petname sweep` (no API server) gets the
// same checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/sweep/value.h"

namespace petname::sweep {

enum class Scale { kLinear, kLog };

// {name, values: [...]} or {name, min, max, step} (grid) / {name, min, max, step?} (random;
// scale log samples uniformly in log space; a grid ignores scale). `values` is filled in for a
// list; a range's grid values come from GridValues (expand.h). Integer parameters take
// integer min, max and step.
struct Parameter {
  std::string name;
  std::vector<Value> values;  // non-empty for a list
  bool is_range = false;
  double min = 0;
  double max = 0;
  double step = 0;  // 0 = not given (required for a grid range)
  Scale scale = Scale::kLinear;
};

enum class Algorithm { kGrid, kRandom };
enum class Metric { kValidationLoss, kValidationAccuracy };

struct Objective {
  Metric metric = Metric::kValidationLoss;
  bool has_goal = false;
  double goal = 0;  // validationLoss: reached when <= goal; validationAccuracy: when >= goal
};

// Katib-style defaults: parallelTrialCount 3, maxTrialCount = every grid point (random: 10),
// maxFailedTrialCount 0 = unset (any number of failures is tolerated until all trials end);
// when set to N, the sweep fails once more than N trials failed (as Katib: failed > N).
struct SweepSpec {
  Json job_template = Json::object();  // spec.template: a PetNameTrainingJob spec
  std::vector<Parameter> parameters;
  Algorithm algorithm = Algorithm::kGrid;
  int64_t seed = 42;  // random search
  int parallel_trial_count = 3;
  int max_trial_count = 0;         // 0 = unset
  int max_failed_trial_count = 0;  // 0 = unset
  Objective objective;
  // A trial that reaches the goal ends there (Succeeded) instead of training all its epochs:
  // the trainer is given the goal (`petname train --goal METRIC=VALUE --stop-at-goal`) and stops
  // itself after that epoch's checkpoint.
  bool stop_trial_at_goal = false;
  bool median_stopping = false;        // stop a trial whose metric at epoch e is behind the median
  int median_stopping_min_trials = 3;  // completed-epoch values needed before it applies
};

// Grids larger than this are refused (the CRD says the same).
inline constexpr int64_t kMaxGridTrials = 1000;

// Parses and checks `spec` (the sweep's spec object). InvalidArgument names the field and the
// problem in one line, e.g. "spec.parameters[1].name: unknown parameter \"training.lr\" (known:
// ...)", "spec.parameters[0].values: must not be empty", "spec.parameters[2]: min 0.1 > max
// 0.01", "spec.parameters[2].step: must be > 0", "spec.parameters: the grid has 1200 trials
// (at most 1000)", "spec.parallelTrialCount: must be >= 1", "spec.objective.goal: 1.5 is
// outside validationAccuracy's range [0, 1]". Also refused: unknown fields (a typo must not
// be ignored silently), maxTrialCount over kMaxGridTrials, stopTrialAtGoal without a goal.
Status SweepSpecFromJson(const Json& spec, SweepSpec* out);

const char* MetricName(Metric metric);  // "validationLoss" | "validationAccuracy"

}  // namespace petname::sweep
