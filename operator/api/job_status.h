// JobStatus: the status of a PetNameTrainingJob as the operator decides it, typed like the CRD's
// status schema (crds/, like Kubeflow's types.go). JobStatusFromJson and JobStatusToJson are the
// only places where it meets JSON; everything else reads and writes these structs.
//
// Times are Unix seconds (RFC 3339 at the JSON edge, second precision); an absent time or one
// that does not parse reads as nullopt. Unknown phases read as kUnset, unknown fields are dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace petname::api {

enum class JobPhase { kUnset, kPending, kRunning, kRestarting, kSucceeded, kFailed, kSuspended };

// The phase's name in the API ("" for kUnset).
const char* PhaseName(JobPhase phase);
// kSucceeded and kFailed.
bool IsFinished(JobPhase phase);

// metav1.Condition: status true or false (the API's "True"/"False"; "Unknown" reads as false).
struct Condition {
  std::string type;
  bool status = false;
  std::string reason;
  std::string message;
  int64_t last_transition_time = 0;

  bool operator==(const Condition& o) const;
  bool operator!=(const Condition& o) const { return !(*this == o); }
};

// status.progress: rank 0's training progress, read from its /metrics by the progress scraper.
struct Progress {
  int64_t epoch = 0;
  int64_t epochs = 0;
  std::optional<double> train_loss;
  std::optional<double> validation_loss;
  std::optional<double> validation_accuracy;
  std::optional<double> samples_per_second;  // all ranks together
  std::optional<int64_t> last_checkpoint_time;
  std::optional<int64_t> checkpoint_failures;  // failed checkpoint saves of this run, when any
  std::optional<int64_t> update_time;          // when the scraper last saw a change
  // training.goal first reached: training seconds (across resumes) and Unix time.
  std::optional<double> goal_reached_training_seconds;
  std::optional<int64_t> goal_reached_time;

  bool operator==(const Progress& o) const;
  bool operator!=(const Progress& o) const { return !(*this == o); }
};

// status.model: where a Succeeded job's exported model is on its checkpoint claim.
struct ModelVolume {
  std::string claim_name;
  std::string sub_path;  // the file's path inside the claim's volume

  bool operator==(const ModelVolume& o) const;
  bool operator!=(const ModelVolume& o) const { return !(*this == o); }
};

struct JobStatus {
  JobPhase phase = JobPhase::kUnset;
  std::vector<Condition> conditions;
  int active = 0;     // rank pods pending or running
  int ready = 0;      // rank pods running and Ready
  int succeeded = 0;  // rank pods succeeded
  int failed = 0;     // rank pods failed
  int ranks = 0;      // the world size (replicas x processes per pod)
  int restarts = 0;   // gang restarts so far (the restart generation of the current pods)
  std::optional<int64_t> start_time;
  std::optional<int64_t> completion_time;
  std::optional<int64_t> last_restart_time;
  int64_t observed_generation = 0;
  std::optional<Progress> progress;
  // Why the job is in its phase when that needs attention (jobs/status_summary.h); "" when
  // nothing does.
  std::string reason;
  std::string message;
  // The exported model (model.safetensors) as the rank pods see it, once Succeeded, and, with a
  // checkpoint claim, where it is on that claim.
  std::string model_path;
  std::optional<ModelVolume> model;

  bool operator==(const JobStatus& o) const;
  bool operator!=(const JobStatus& o) const { return !(*this == o); }
};

// Reads a status object; anything that is not an object reads as an empty status.
JobStatus JobStatusFromJson(const nlohmann::json& status);

// The phase of a PetNameTrainingJob object (its status.phase alone, for the per-scrape and
// per-interval listings that need nothing else of the status).
JobPhase PhaseOf(const nlohmann::json& job);

// The status object the API server stores (absent optionals are left out).
nlohmann::json JobStatusToJson(const JobStatus& status);

nlohmann::json ProgressToJson(const Progress& progress);

// One metav1.Condition (shared with PetNameTrainingSweep's status, sweep.h).
Condition ConditionFromJson(const nlohmann::json& condition);
nlohmann::json ConditionToJson(const Condition& condition);

}  // namespace petname::api
