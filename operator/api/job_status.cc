#include "operator/api/job_status.h"

#include "operator/api/fields.h"
#include "operator/kube/time.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

constexpr JobPhase kPhases[] = {JobPhase::kPending,   JobPhase::kRunning, JobPhase::kRestarting,
                                JobPhase::kSucceeded, JobPhase::kFailed,  JobPhase::kSuspended};

JobPhase PhaseFromName(const std::string& name) {
  for (JobPhase p : kPhases) {
    if (name == PhaseName(p)) return p;
  }
  return JobPhase::kUnset;
}

using fields::Int;
using fields::Number;
using fields::PutNumber;
using fields::PutTime;
using fields::String;
using fields::Time;

Progress ProgressFromJson(const Json& p) {
  Progress out;
  out.epoch = Int(p, "epoch");
  out.epochs = Int(p, "epochs");
  out.train_loss = Number(p, "trainLoss");
  out.validation_loss = Number(p, "validationLoss");
  out.validation_accuracy = Number(p, "validationAccuracy");
  out.samples_per_second = Number(p, "samplesPerSecond");
  out.last_checkpoint_time = Time(p, "lastCheckpointTime");
  if (p.contains("checkpointFailures")) out.checkpoint_failures = Int(p, "checkpointFailures");
  out.update_time = Time(p, "updateTime");
  out.goal_reached_training_seconds = Number(p, "goalReachedTrainingSeconds");
  out.goal_reached_time = Time(p, "goalReachedTime");
  return out;
}

}  // namespace

const char* PhaseName(JobPhase phase) {
  switch (phase) {
    case JobPhase::kUnset:
      return "";
    case JobPhase::kPending:
      return "Pending";
    case JobPhase::kRunning:
      return "Running";
    case JobPhase::kRestarting:
      return "Restarting";
    case JobPhase::kSucceeded:
      return "Succeeded";
    case JobPhase::kFailed:
      return "Failed";
    case JobPhase::kSuspended:
      return "Suspended";
  }
  return "";
}

bool IsFinished(JobPhase phase) {
  return phase == JobPhase::kSucceeded || phase == JobPhase::kFailed;
}

Condition ConditionFromJson(const Json& c) {
  Condition out;
  out.type = String(c, "type");
  out.status = String(c, "status") == "True";
  out.reason = String(c, "reason");
  out.message = String(c, "message");
  int64_t t = 0;
  if (kube::ParseTime(String(c, "lastTransitionTime"), &t)) out.last_transition_time = t;
  return out;
}

Json ConditionToJson(const Condition& c) {
  return {{"type", c.type},
          {"status", c.status ? "True" : "False"},
          {"reason", c.reason},
          {"message", c.message},
          {"lastTransitionTime", kube::FormatTime(c.last_transition_time)}};
}

bool Condition::operator==(const Condition& o) const {
  return type == o.type && status == o.status && reason == o.reason && message == o.message &&
         last_transition_time == o.last_transition_time;
}

bool Progress::operator==(const Progress& o) const {
  return epoch == o.epoch && epochs == o.epochs && train_loss == o.train_loss &&
         validation_loss == o.validation_loss && validation_accuracy == o.validation_accuracy &&
         samples_per_second == o.samples_per_second &&
         last_checkpoint_time == o.last_checkpoint_time &&
         checkpoint_failures == o.checkpoint_failures && update_time == o.update_time &&
         goal_reached_training_seconds == o.goal_reached_training_seconds &&
         goal_reached_time == o.goal_reached_time;
}

bool ModelVolume::operator==(const ModelVolume& o) const {
  return claim_name == o.claim_name && sub_path == o.sub_path;
}

bool JobStatus::operator==(const JobStatus& o) const {
  return phase == o.phase && conditions == o.conditions && active == o.active && ready == o.ready &&
         succeeded == o.succeeded && failed == o.failed && ranks == o.ranks &&
         restarts == o.restarts && start_time == o.start_time &&
         completion_time == o.completion_time && last_restart_time == o.last_restart_time &&
         observed_generation == o.observed_generation && progress == o.progress &&
         reason == o.reason && message == o.message && model_path == o.model_path &&
         model == o.model;
}

JobStatus JobStatusFromJson(const Json& status) {
  JobStatus out;
  if (!status.is_object()) return out;
  out.phase = PhaseFromName(String(status, "phase"));
  auto conds = status.find("conditions");
  if (conds != status.end() && conds->is_array()) {
    for (const Json& c : *conds) {
      if (c.is_object()) out.conditions.push_back(ConditionFromJson(c));
    }
  }
  out.active = static_cast<int>(Int(status, "active"));
  out.ready = static_cast<int>(Int(status, "ready"));
  out.succeeded = static_cast<int>(Int(status, "succeeded"));
  out.failed = static_cast<int>(Int(status, "failed"));
  out.ranks = static_cast<int>(Int(status, "ranks"));
  out.restarts = static_cast<int>(Int(status, "restarts"));
  out.start_time = Time(status, "startTime");
  out.completion_time = Time(status, "completionTime");
  out.last_restart_time = Time(status, "lastRestartTime");
  out.observed_generation = Int(status, "observedGeneration");
  auto progress = status.find("progress");
  if (progress != status.end() && progress->is_object()) {
    out.progress = ProgressFromJson(*progress);
  }
  out.reason = String(status, "reason");
  out.message = String(status, "message");
  out.model_path = String(status, "modelPath");
  auto model = status.find("model");
  if (model != status.end() && model->is_object()) {
    out.model = ModelVolume{String(*model, "claimName"), String(*model, "subPath")};
  }
  return out;
}

Json ProgressToJson(const Progress& p) {
  Json out = {{"epoch", p.epoch}, {"epochs", p.epochs}};
  PutNumber(&out, "trainLoss", p.train_loss);
  PutNumber(&out, "validationLoss", p.validation_loss);
  PutNumber(&out, "validationAccuracy", p.validation_accuracy);
  PutNumber(&out, "samplesPerSecond", p.samples_per_second);
  PutTime(&out, "lastCheckpointTime", p.last_checkpoint_time);
  if (p.checkpoint_failures) out["checkpointFailures"] = *p.checkpoint_failures;
  PutTime(&out, "updateTime", p.update_time);
  PutNumber(&out, "goalReachedTrainingSeconds", p.goal_reached_training_seconds);
  PutTime(&out, "goalReachedTime", p.goal_reached_time);
  return out;
}

JobPhase PhaseOf(const Json& job) {
  auto status = job.find("status");
  return status != job.end() && status->is_object() ? PhaseFromName(String(*status, "phase"))
                                                    : JobPhase::kUnset;
}

Json JobStatusToJson(const JobStatus& s) {
  Json out = Json::object();
  if (s.phase != JobPhase::kUnset) out["phase"] = PhaseName(s.phase);
  Json conds = Json::array();
  for (const Condition& c : s.conditions) {
    conds.push_back(ConditionToJson(c));
  }
  out["conditions"] = std::move(conds);
  out["active"] = s.active;
  out["ready"] = s.ready;
  out["succeeded"] = s.succeeded;
  out["failed"] = s.failed;
  out["ranks"] = s.ranks;
  out["restarts"] = s.restarts;
  PutTime(&out, "startTime", s.start_time);
  PutTime(&out, "completionTime", s.completion_time);
  PutTime(&out, "lastRestartTime", s.last_restart_time);
  out["observedGeneration"] = s.observed_generation;
  if (s.progress) out["progress"] = ProgressToJson(*s.progress);
  if (!s.reason.empty()) out["reason"] = s.reason;
  if (!s.message.empty()) out["message"] = s.message;
  if (!s.model_path.empty()) out["modelPath"] = s.model_path;
  if (s.model) out["model"] = {{"claimName", s.model->claim_name}, {"subPath", s.model->sub_path}};
  return out;
}

}  // namespace petname::api
