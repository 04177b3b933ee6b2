// How a job's Workload (kueue.x-k8s.io/v1beta2) differs from the one the job asks for now, as
// Kueue's jobframework tells (EquivalentToWorkload, the queue-name and priority-class handling),
// and the Workload changed to match it. Pure JSON functions; the decisions are in
// kueue/queue_admission.h.
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
  bool execution_time = false;     // spec.maximumExecutionTimeSeconds differs
  bool queue = false;              // spec.queueName differs
  bool priority_class = false;     // the WorkloadPriorityClass differs (name, or one has none)
  bool priority_presence = false;  // one has a priorityClassRef, the other not

  bool any() const { return pod_sets || execution_time || queue || priority_class; }
  // What Kueue keeps unchangeable while the Workload holds quota (its webhook and the CRD's
  // rules): a Workload with quota that differs in one of these is replaced, not updated.
  bool immutable_while_reserved() const {
    return pod_sets || execution_time || queue || priority_presence;
  }
};

// `current`: the Workload as read; `wanted`: BuildWorkload's for the job now. A Workload whose
// priority came from a Pod PriorityClass keeps it, as Kueue's jobframework updates the priority
// only of a Workload without a class or with a WorkloadPriorityClass: no priority drift then.
WorkloadDrift CompareWorkload(const nlohmann::json& current, const nlohmann::json& wanted);

// `current` with the spec of `wanted` that Kueue lets change (a field `wanted` lacks is removed):
// while the Workload holds quota (`reserved`), spec.priorityClassRef and spec.priority only, as
// Kueue's UpdateWorkloadPriority changes them (spec.podSets, whose template carries the restart
// generation, is unchangeable then); otherwise also spec.podSets, spec.queueName and
// spec.maximumExecutionTimeSeconds, as Kueue brings a suspended job's Workload in line. Metadata
// and status are kept, resourceVersion included, so that a PUT of it fails (409) if Kueue wrote
// the Workload since it was read.
nlohmann::json WithSpecOf(const nlohmann::json& current, const nlohmann::json& wanted,
                          bool reserved);

// The WorkloadPriorityClass that the Workload's spec.priorityClassRef names ("" for none, or for
// a Pod PriorityClass).
std::string WorkloadPriorityClass(const nlohmann::json& wl);

// The value of a Kubernetes quantity (a JSON number, or a string such as "500m", "2", "1.5Gi",
// "1e3"), in its unit; false when it is not one.
bool QuantityValue(const nlohmann::json& quantity, long double* value);

}  // namespace petname::api
