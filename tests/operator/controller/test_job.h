// A PetNameTrainingJob and pod fixtures shared by the controller unit tests.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/conditions.h"
#include "operator/api/job.h"
#include "operator/api/pod.h"

namespace petname::controller {

inline api::Job TestJob(int replicas, const std::string& patch = "{}") {
  nlohmann::json obj = nlohmann::json::parse(R"({"apiVersion": "petname.dev/v1alpha1",
    "kind": "PetNameTrainingJob", "metadata": {"name": "rex", "namespace": "ml",
    "uid": "job-uid", "generation": 1}, "spec": {"image": "petname:1",
    "dataset": {"path": "/data/pets.csv"}}})");
  obj["spec"]["replicas"] = replicas;
  obj.merge_patch(nlohmann::json::parse(patch));
  api::Job job;
  api::JobFromJson(obj, &job);
  return job;
}

// A pod named `name` controlled by `owner_uid` (none when empty) in `phase` ("" = no status).
inline nlohmann::json TestPod(const std::string& name, const std::string& owner_uid,
                              const std::string& phase, bool ready = false) {
  nlohmann::json pod = {{"metadata", {{"name", name}, {"namespace", "ml"}}}};
  if (!owner_uid.empty()) {
    pod["metadata"]["ownerReferences"] = {{{"uid", owner_uid}, {"controller", true}}};
  }
  if (!phase.empty()) {
    pod["status"] = {{"phase", phase}};
    pod["status"]["conditions"] = {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
  }
  return pod;
}

// The condition `type` of `status` as "True/Reason" or "False/Reason", "<none>" when absent.
inline std::string Cond(const api::JobStatus& status, const std::string& type) {
  const api::Condition* c = api::FindCondition(status.conditions, type);
  return c == nullptr ? "<none>" : std::string(c->status ? "True" : "False") + "/" + c->reason;
}

// `n` ready, Running rank pods of TestJob's job (rex-rank-0 ..), as the operator observes them.
inline std::vector<api::ObservedPod> RunningPods(int n) {
  std::vector<api::ObservedPod> pods;
  for (int i = 0; i < n; ++i) {
    api::ObservedPod p =
        api::PodFromJson(TestPod("rex-rank-" + std::to_string(i), "job-uid", "Running", true));
    p.rank = i;
    pods.push_back(p);
  }
  return pods;
}

}  // namespace petname::controller
