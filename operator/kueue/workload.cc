#include "operator/kueue/workload.h"

#include <algorithm>
#include <utility>

#include "common/sha256.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::api {
namespace {

bool HasResourceInUse(const Json& wl) {
  const Json finalizers = wl.value("/metadata/finalizers"_json_pointer, Json::array());
  return std::find(finalizers.begin(), finalizers.end(), kResourceInUseFinalizer) !=
         finalizers.end();
}

const Json* FindWorkloadCondition(const Json& wl, const std::string& type) {
  const Json* conds = wl.contains("status") ? &wl["status"] : nullptr;
  if (conds == nullptr || !conds->is_object() || !conds->contains("conditions")) return nullptr;
  for (const Json& c : (*conds)["conditions"]) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

bool WorkloadConditionTrue(const Json& wl, const std::string& type) {
  const Json* c = FindWorkloadCondition(wl, type);
  return c != nullptr && c->value("status", "") == "True";
}

// Sets a metav1.Condition in wl.status.conditions; lastTransitionTime changes with the status.
void SetWorkloadCondition(Json* wl, const std::string& type, bool status, const std::string& reason,
                          const std::string& message, int64_t now) {
  Json& st = (*wl)["status"];
  if (!st.is_object()) st = Json::object();
  Json& conds = st["conditions"];
  if (!conds.is_array()) conds = Json::array();
  const std::string value = status ? "True" : "False";
  Json cond = {{"type", type},
               {"status", value},
               {"reason", reason},
               {"message", message.substr(0, 32768)},
               {"lastTransitionTime", kube::FormatTime(now)},
               {"observedGeneration", wl->value("/metadata/generation"_json_pointer, 0)}};
  for (Json& c : conds) {
    if (c.is_object() && c.value("type", "") == type) {
      if (c.value("status", "") == value) cond["lastTransitionTime"] = c["lastTransitionTime"];
      c = cond;
      return;
    }
  }
  conds.push_back(cond);
}

}  // namespace

std::string QueueName(const Job& job) { return kube::Label(job.object, kQueueNameLabel); }

std::string WorkloadName(const Job& job) {
  const std::string prefix = "petnametrainingjob-";
  const std::string hash = Sha256Hex(job.uid).substr(0, 5);
  // 63 - "-" - hash: the name part is cut so that the whole stays a valid label.
  std::string name = (prefix + job.name).substr(0, 63 - 1 - hash.size());
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name + "-" + hash;
}

WorkloadState WorkloadStateFromJson(const Json& wl) {
  WorkloadState s;
  s.exists = true;
  s.name = kube::Name(wl);
  s.deleting = !kube::StringAt(wl, "/metadata/deletionTimestamp").empty();
  s.in_use = HasResourceInUse(wl);
  s.quota_reserved = WorkloadConditionTrue(wl, "QuotaReserved");
  s.admitted = WorkloadConditionTrue(wl, "Admitted");
  if (const Json* c = FindWorkloadCondition(wl, "Finished");
      c && c->value("status", "") == "True") {
    s.finished = true;
    s.finished_reason = c->value("reason", "");
    s.finished_message = c->value("message", "");
  }
  if (const Json* c = FindWorkloadCondition(wl, "Evicted"); c && c->value("status", "") == "True") {
    s.evicted = true;
    s.evicted_reason = c->value("reason", "");
    s.evicted_message = c->value("message", "");
  }
  if (const Json* c = FindWorkloadCondition(wl, "QuotaReserved");
      c && c->value("status", "") != "True") {
    s.pending_message = c->value("message", "");
  }
  if (const Json* c = FindWorkloadCondition(wl, "PodsReady")) {
    s.pods_ready = c->value("status", "") == "True";
    s.pods_ready_reason = c->value("reason", "");
  }
  for (const Json& check : wl.value("/status/admissionChecks"_json_pointer, Json::array())) {
    if (!check.is_object()) continue;
    for (const Json& u : check.value("podSetUpdates", Json::array())) {
      if (u.is_object() && u.value("name", "") == kPodSetName) s.pod_set_updates.push_back(u);
    }
  }
  const Json admission = wl.value("/status/admission"_json_pointer, Json());
  if (!admission.is_object()) return s;
  s.cluster_queue = admission.value("clusterQueue", "");
  for (const Json& a : admission.value("podSetAssignments", Json::array())) {
    if (!a.is_object() || a.value("name", "") != kPodSetName) continue;
    s.topology_assigned = a.contains("topologyAssignment") || a.contains("delayedTopologyRequest");
    if (a.contains("count") && a["count"].is_number_integer()) s.admitted_count = a["count"];
    const Json flavors = a.value("flavors", Json::object());
    for (const auto& [resource, flavor] : flavors.items()) {
      if (flavor.is_string()) s.flavors[resource] = flavor.get<std::string>();
    }
  }
  return s;
}

WorkloadPriority WorkloadPriorityOf(const Json& wl) {
  WorkloadPriority p;
  const Json value = wl.value("/spec/priority"_json_pointer, Json());
  if (value.is_number_integer()) p.value = value.get<int32_t>();
  const Json ref = wl.value("/spec/priorityClassRef"_json_pointer, Json());
  if (!ref.is_object()) return p;
  p.name = ref.value("name", "");
  if (ref.value("kind", "") == "WorkloadPriorityClass") {
    p.kind = WorkloadPriority::Kind::kWorkloadPriorityClass;
  } else if (ref.value("kind", "") == "PriorityClass") {
    p.kind = WorkloadPriority::Kind::kPriorityClass;
  }
  return p;
}

namespace {

// Kueue's MaximumExecutionTimeSecondsForObject: a positive int32, else none.
std::optional<int32_t> MaxExecutionSeconds(const Job& job) {
  const std::string v = kube::Label(job.object, kMaxExecTimeLabel);
  if (v.empty() || v.size() > 10 || v.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const long long n = std::stoll(v);
  if (n <= 0 || n > 2147483647LL) return std::nullopt;
  return static_cast<int32_t>(n);
}

Json WorkloadMetadata(const Job& job, const std::vector<std::string>& label_keys_to_copy) {
  Json labels = Json::object();
  const Json job_labels = job.object.value("/metadata/labels"_json_pointer, Json::object());
  for (const std::string& key : label_keys_to_copy) {
    const Json value = job_labels.value(key, Json());
    if (value.is_string()) labels[key] = value;
  }
  labels[kNameLabel] = kAppName;
  labels[kJobNameLabel] = job.name;
  labels[kJobUidLabel] = job.uid;
  Json meta = {{"name", WorkloadName(job)},
               {"namespace", job.ns},
               {"labels", labels},
               {"finalizers", Json::array({kResourceInUseFinalizer})},
               {"ownerReferences", Json::array({kube::ControllerRef(job.object)})}};
  Json annotations = Json::object();
  const Json job_annotations =
      job.object.value("/metadata/annotations"_json_pointer, Json::object());
  for (const auto& [key, value] : job_annotations.items()) {
    if (key.rfind(kProvReqAnnotationPrefix, 0) == 0 && value.is_string()) annotations[key] = value;
  }
  if (!annotations.empty()) meta["annotations"] = annotations;
  return meta;
}

}  // namespace

Json BuildWorkload(const Job& job, const Json& pod, const WorkloadPriority& priority,
                   const std::vector<std::string>& label_keys_to_copy) {
  Json template_meta = {{"labels", pod.value("/metadata/labels"_json_pointer, Json::object())}};
  Json pod_set = {{"name", kPodSetName},
                  {"count", job.spec.replicas},
                  {"template", {{"metadata", template_meta}, {"spec", pod.value("spec", Json())}}}};
  if (job.spec.min_replicas > 0 && job.spec.min_replicas < job.spec.replicas) {
    pod_set["minCount"] = job.spec.min_replicas;
  }
  Json spec = {{"podSets", Json::array({pod_set})}, {"priority", priority.value}};
  // Kueue's API refuses an empty queueName: a job Kueue manages without a queue has none.
  if (!QueueName(job).empty()) spec["queueName"] = QueueName(job);
  if (priority.kind == WorkloadPriority::Kind::kWorkloadPriorityClass) {
    spec["priorityClassRef"] = {
        {"group", "kueue.x-k8s.io"}, {"kind", "WorkloadPriorityClass"}, {"name", priority.name}};
  } else if (priority.kind == WorkloadPriority::Kind::kPriorityClass) {
    spec["priorityClassRef"] = {
        {"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", priority.name}};
  }
  if (const std::optional<int32_t> seconds = MaxExecutionSeconds(job)) {
    spec["maximumExecutionTimeSeconds"] = *seconds;
  }
  return {{"apiVersion", kKueueApiVersion},
          {"kind", "Workload"},
          {"metadata", WorkloadMetadata(job, label_keys_to_copy)},
          {"spec", spec}};
}

Json ClearReservation(const Json& wl, int64_t now) {
  Json out = wl;
  const WorkloadState s = WorkloadStateFromJson(wl);
  const bool requeued = s.evicted_reason == "Preempted" || s.evicted_reason == "NodeFailures";
  SetWorkloadCondition(&out, "Requeued", requeued, s.evicted_reason, s.evicted_message, now);
  SetWorkloadCondition(&out, "QuotaReserved", false, "Pending", s.evicted_message, now);
  SetWorkloadCondition(&out, "Admitted", false, "NoReservation", "The workload has no reservation",
                       now);
  if (s.pods_ready) {
    SetWorkloadCondition(&out, "PodsReady", false, kPodsReadyWaitForStart, kPodsReadyNotReady, now);
  }
  out["status"].erase("admission");
  return out;
}

Json FinishWorkload(const Json& wl, const std::string& reason, const std::string& message,
                    int64_t now) {
  Json out = wl;
  SetWorkloadCondition(&out, "Finished", true, reason, message, now);
  return out;
}

Json SetWorkloadPodsReady(const Json& wl, const WorkloadCondition& c, int64_t now) {
  Json out = wl;
  SetWorkloadCondition(&out, "PodsReady", c.status, c.reason, c.message, now);
  return out;
}

Json WithoutResourceInUse(const Json& wl) {
  Json out = wl;
  if (!HasResourceInUse(wl)) return out;
  Json& finalizers = out["metadata"]["finalizers"];
  finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kResourceInUseFinalizer),
                   finalizers.end());
  return out;
}

}  // namespace petname::api
