// How a job's Workload (kueue.x-k8s.io/v1beta2) differs from the one the job asks for now, as
// Kueue's jobframework tells (EquivalentToWorkload, the queue-name and priority-class handling),
// and the Workload changed to match it. Pure JSON functions; the decisions are in
// controller/queue_admission.h.
//
// The pod set "ranks" is equivalent when count, minCount and every container's and init
// container's resources (requests and limits, each quantity compared by value: "1000m" equals
// "1", "1Gi" equals "1024Mi") are the same. The rest of the template is not compared: it does not
// change what Kueue reserves, and the rank pods are rendered from the job, not from the Workload.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace petname::api {

struct WorkloadDrift {
  bool pod_sets = false;           // replicas, minReplicas or resources changed
  bool queue = false;              // spec.queueName differs
  bool priority_class = false;     // the WorkloadPriorityClass differs (name, or one has none)
  bool priority_presence = false;  // one has a priorityClassRef, the other not

  bool any() const { return pod_sets || queue || priority_class; }
};

// `current`: the Workload as read; `wanted`: BuildWorkload's for the job now.
WorkloadDrift CompareWorkload(const nlohmann::json& current, const nlohmann::json& wanted);

// `current` with spec.podSets, spec.queueName, spec.priorityClassRef and spec.priority of
// `wanted` (a field `wanted` lacks is removed); metadata and status are kept, resourceVersion
// included, so that a PUT of it fails (409) if Kueue wrote the Workload since it was read.
nlohmann::json WithSpecOf(const nlohmann::json& current, const nlohmann::json& wanted);

// The WorkloadPriorityClass that the Workload's spec.priorityClassRef names ("" for none, or for
// a Pod PriorityClass).
std::string WorkloadPriorityClass(const nlohmann::json& wl);

// The value of a Kubernetes quantity (a JSON number, or a string such as "500m", "2", "1.5Gi",
// "1e3"), in its unit; false when it is not one.
bool QuantityValue(const nlohmann::json& quantity, long double* value);

}  // namespace petname::api
