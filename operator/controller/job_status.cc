#include "operator/controller/job_status.h"

#include "operator/api/conditions.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

struct Counts {
  int pending = 0, running = 0, ready = 0, succeeded = 0, failed = 0;
};

bool IsReady(const Json& pod) {
  Json::json_pointer ptr("/status/conditions");
  if (!pod.contains(ptr) || !pod.at(ptr).is_array()) return false;
  for (const Json& c : pod.at(ptr)) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

Counts Count(const std::vector<Json>& pods) {
  Counts c;
  for (const Json& pod : pods) {
    if (!kube::StringAt(pod, "/metadata/deletionTimestamp").empty()) continue;
    std::string phase = kube::StringAt(pod, "/status/phase");
    if (phase == "Running") {
      ++c.running;
      if (IsReady(pod)) ++c.ready;
    } else if (phase == "Succeeded") {
      ++c.succeeded;
    } else if (phase == "Failed") {
      ++c.failed;
    } else {
      ++c.pending;
    }
  }
  return c;
}

std::string NextPhase(const api::Job& job, const Counts& c) {
  std::string previous = job.status.value("phase", "");
  if (previous == "Succeeded" || previous == "Failed") return previous;
  if (c.failed > 0) return "Failed";
  const int n = job.spec.replicas;
  if (c.succeeded >= n) return "Succeeded";
  if (job.spec.suspend) return "Suspended";
  if (c.running > 0 && c.running + c.succeeded >= n) return "Running";
  return "Pending";
}

}  // namespace

Json ComputeStatus(const api::Job& job, const std::vector<Json>& owned_pods,
                   const std::string& now) {
  const Counts c = Count(owned_pods);
  const std::string phase = NextPhase(job, c);
  const int n = job.spec.replicas;
  Json status = job.status.is_object() ? job.status : Json::object();
  status["phase"] = phase;
  status["active"] = c.pending + c.running;
  status["ready"] = c.ready;
  status["succeeded"] = c.succeeded;
  status["failed"] = c.failed;
  if (!status.contains("restarts")) status["restarts"] = 0;
  status["observedGeneration"] = job.generation;
  if (!status.contains("startTime")) status["startTime"] = now;

  Json& conds = status["conditions"];
  const int existing = c.pending + c.running + c.succeeded + c.failed;
  if (existing >= n || api::FindCondition(conds, api::kCreated).is_object()) {
    api::SetCondition(&conds, api::kCreated, true, "PodsCreated",
                      "all " + std::to_string(n) + " rank pods were created", now);
  }
  const std::string counts = std::to_string(c.running) + "/" + std::to_string(n) + " running, " +
                             std::to_string(c.succeeded) + " succeeded, " +
                             std::to_string(c.failed) + " failed";
  if (phase == "Running" || api::FindCondition(conds, api::kRunning).is_object()) {
    api::SetCondition(&conds, api::kRunning, phase == "Running",
                      phase == "Running" ? "AllRanksRunning" : "Job" + phase, counts, now);
  }
  if (phase == "Succeeded") {
    api::SetCondition(&conds, api::kSucceeded, true, "AllRanksSucceeded", counts, now);
  }
  if (phase == "Failed") {
    api::SetCondition(&conds, api::kFailed, true, "RankFailed", counts, now);
  }
  if (job.spec.suspend || api::FindCondition(conds, api::kSuspended).is_object()) {
    api::SetCondition(&conds, api::kSuspended, phase == "Suspended",
                      phase == "Suspended" ? "JobSuspended" : "JobResumed",
                      "spec.runPolicy.suspend", now);
  }
  if ((phase == "Succeeded" || phase == "Failed") && !status.contains("completionTime")) {
    status["completionTime"] = now;
  }
  return status;
}

}  // namespace petname::controller
