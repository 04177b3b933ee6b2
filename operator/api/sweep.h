// PetNameTrainingSweep (petname.dev/v1alpha1): a hyper-parameter sweep whose trials are
// PetNameTrainingJobs. The spec is the shared sweep core's (common/sweep/spec.h, parsed by
// sweep::SweepSpecFromJson); the status is typed here like the CRD's status schema
// (crds/petname.dev_petnametrainingsweeps.yaml). SweepFromJson, SweepStatusFromJson and
// SweepStatusToJson are the only places where a sweep meets JSON.
//
// Status fields (JSON names): phase; conditions (Created, Running, Succeeded, Failed);
// trials, trialsPending, trialsRunning, trialsSucceeded, trialsFailed, trialsStopped (counts, as
// Katib's Experiment has them); bestTrial (a trial name); trialStatuses (one row per created
// trial: name, parameters {name: value}, phase, epochs, bestValidationLoss,
// bestValidationAccuracy, samplesPerSecond, wallSeconds, timeToGoalSeconds,
// wallTimeToGoalSeconds, message, history {epochs, validationLoss, validationAccuracy}: parallel
// lists, what sweeps/sweep_history.h keeps);
// startTime, completionTime; observedGeneration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/sweep/spec.h"
#include "common/sweep/trials.h"
#include "operator/api/job_status.h"

namespace petname::api {

inline constexpr char kSweepKind[] = "PetNameTrainingSweep";
inline constexpr char kSweepPlural[] = "petnametrainingsweeps";
// Labels on every trial job: the sweep's name and the trial's index in the expansion.
inline constexpr char kSweepNameLabel[] = "petname.dev/sweep-name";
inline constexpr char kTrialIndexLabel[] = "petname.dev/trial-index";

struct SweepStatus {
  sweep::SweepPhase phase = sweep::SweepPhase::kCreated;
  std::vector<Condition> conditions;
  sweep::Counts counts;
  std::string best_trial;            // "" = none yet
  std::vector<sweep::Trial> trials;  // by trial index
  // history[i]: trials[i]'s validation metrics after each epoch the operator observed (for
  // median stopping, which compares trials at the same epoch); epoch order.
  std::vector<std::vector<sweep::EpochPoint>> history;
  std::optional<int64_t> start_time;
  std::optional<int64_t> completion_time;
  int64_t observed_generation = 0;
};

struct Sweep {
  std::string name;
  std::string ns;
  std::string uid;
  int64_t generation = 0;
  sweep::SweepSpec spec;
  SweepStatus status;
  nlohmann::json object;  // as read (owner references of the trials need it)
};

// Parses a PetNameTrainingSweep object. InvalidArgument names the sweep and the first problem
// (SweepSpecFromJson's words for the spec).
Status SweepFromJson(const nlohmann::json& obj, Sweep* out);

// Reads a status object; anything that is not an object reads as an empty status. Unknown
// phases read as Created, unknown trial phases as Pending, unknown fields are dropped.
SweepStatus SweepStatusFromJson(const nlohmann::json& status);

// The status object the API server stores (NaN numbers and absent times left out).
nlohmann::json SweepStatusToJson(const SweepStatus& status);

}  // namespace petname::api
