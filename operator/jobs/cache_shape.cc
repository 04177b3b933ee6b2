#include "operator/jobs/cache_shape.h"

#include <initializer_list>
#include <utility>

#include "operator/api/job.h"
#include "operator/api/pod.h"
#include "operator/api/sweep.h"
#include "operator/jobs/rank_pod.h"
#include "operator/kube/object.h"
#include "operator/kueue/workload.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// Where a job or sweep too large to cache keeps its size (no Kubernetes object has such a field).
constexpr char kTooLargeField[] = "petname.dev/tooLargeBytes";

// The members `keys` of `from` that it has, moved into a new object.
Json Pick(Json* from, std::initializer_list<const char*> keys) {
  Json out = Json::object();
  if (!from->is_object()) return out;
  for (const char* key : keys) {
    auto it = from->find(key);
    if (it != from->end()) out[key] = std::move(*it);
  }
  return out;
}

// The controller ownerReference of `obj`, or nullptr.
const Json* ControllerOf(const Json& obj) {
  Json::json_pointer ptr("/metadata/ownerReferences");
  if (!obj.contains(ptr) || !obj.at(ptr).is_array()) return nullptr;
  for (const Json& ref : obj.at(ptr)) {
    if (ref.is_object() && ref.value("controller", false)) return &ref;
  }
  return nullptr;
}

// Whether `obj`'s controller is a petname.dev object of `kind` named `name`.
bool ControlledByPetname(const Json& obj, const char* kind, const std::string& name) {
  const Json* ref = ControllerOf(obj);
  if (ref == nullptr || name.empty()) return false;
  const std::string group = std::string(api::kGroup) + "/";
  return ref->value("apiVersion", "").rfind(group, 0) == 0 && ref->value("kind", "") == kind &&
         ref->value("name", "") == name;
}

// "<job>-rank-<i>" for an i below kMaxReplicas, written as PodName writes it.
bool IsRankPodName(const std::string& name, const std::string& job) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos) return false;
  const int rank = api::LabelNumber(name.substr(dash + 1), -1);
  return rank >= 0 && rank < kMaxReplicas && name == PodName(job, rank);
}

// The metadata the operator reads, with the labels `labels` only, in place of obj's.
void KeepMetadata(Json* obj, std::initializer_list<const char*> labels) {
  Json& meta = (*obj)["metadata"];
  const Json* ref = ControllerOf(*obj);
  Json owner = ref != nullptr ? Json::array({*ref}) : Json::array();
  Json kept = Pick(&meta, {"name", "namespace", "uid", "resourceVersion", "generation",
                           "creationTimestamp", "deletionTimestamp"});
  Json kept_labels = Pick(&meta["labels"], labels);
  if (!kept_labels.empty()) kept["labels"] = std::move(kept_labels);
  if (!owner.empty()) kept["ownerReferences"] = std::move(owner);
  meta = std::move(kept);
}

// Each element of the array obj[key] (when it is one) reduced to `keys`.
void PickEach(Json* obj, const char* key, std::initializer_list<const char*> keys) {
  auto it = obj->find(key);
  if (it == obj->end() || !it->is_array()) return;
  for (Json& element : *it) element = Pick(&element, keys);
}

void KeepPodStatus(Json* pod) {
  Json status = Pick(&(*pod)["status"], {"phase", "reason", "message", "podIP", "conditions",
                                         "containerStatuses", "initContainerStatuses"});
  PickEach(&status, "conditions", {"type", "status", "reason", "message", "lastTransitionTime"});
  for (const char* key : {"containerStatuses", "initContainerStatuses"}) {
    PickEach(&status, key, {"name", "image", "state", "lastState"});
  }
  (*pod)["status"] = std::move(status);
}

// Drops the annotations but those the operator reads: a job's provreq.kueue.x-k8s.io/* ones,
// which its Workload copies (kueue/workload.h).
void DropAnnotations(Json* obj) {
  auto meta = obj->find("metadata");
  if (meta == obj->end() || !meta->is_object()) return;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end()) return;
  Json kept = Json::object();
  if (annotations->is_object()) {
    for (auto& [key, value] : annotations->items()) {
      if (key.rfind(api::kProvReqAnnotationPrefix, 0) == 0) kept[key] = std::move(value);
    }
  }
  if (kept.empty()) {
    meta->erase(annotations);
  } else {
    *annotations = std::move(kept);
  }
}

// Replaces an object larger than kMaxCachedObjectBytes by its identity, its status when that is
// at most half as large (a reconciler that writes the status compares it with the one it reads),
// and its size.
void CapSize(Json* obj) {
  const auto bytes = static_cast<int64_t>(obj->dump().size());
  if (bytes <= kMaxCachedObjectBytes) return;
  Json identity = Pick(obj, {"apiVersion", "kind"});
  identity["metadata"] =
      Pick(&(*obj)["metadata"], {"name", "namespace", "uid", "resourceVersion", "generation"});
  auto status = obj->find("status");
  if (status != obj->end() &&
      static_cast<int64_t>(status->dump().size()) <= kMaxCachedObjectBytes / 2) {
    identity["status"] = std::move(*status);
  }
  identity[kTooLargeField] = bytes;
  *obj = std::move(identity);
}

}  // namespace

bool ShapeJobObject(JobObject kind, Json* obj) {
  if (!obj->is_object()) return false;
  const std::string job = kube::Label(*obj, api::kJobNameLabel);
  if (!ControlledByPetname(*obj, api::kKind, job)) return false;
  const std::string name = kube::Name(*obj);
  switch (kind) {
    case JobObject::kWorkload:
      return true;
    case JobObject::kPod:
      if (!IsRankPodName(name, job)) return false;
      break;
    case JobObject::kService:
    case JobObject::kNetworkPolicy:
      if (name != job) return false;
      break;
  }
  Json shaped = Pick(obj, {"apiVersion", "kind", "metadata"});
  if (kind == JobObject::kPod) shaped["status"] = std::move((*obj)["status"]);
  *obj = std::move(shaped);
  KeepMetadata(
      obj, {api::kNameLabel, api::kJobNameLabel, api::kRankLabel, api::kRestartGenerationLabel});
  if (kind == JobObject::kPod) KeepPodStatus(obj);
  return true;
}

bool ShapeJob(Json* job) {
  if (!job->is_object()) return false;
  DropAnnotations(job);
  CapSize(job);
  return true;
}

bool ShapeSweep(Json* sweep) { return ShapeJob(sweep); }

bool ShapeTrialJob(Json* job) {
  if (!job->is_object()) return false;
  if (!ControlledByPetname(*job, api::kSweepKind, kube::Label(*job, api::kSweepNameLabel))) {
    return false;
  }
  Json shaped = Pick(job, {"apiVersion", "kind", "metadata", "status"});
  Json::json_pointer suspend("/spec/runPolicy/suspend");
  if (job->contains(suspend)) shaped[suspend] = std::move(job->at(suspend));
  *job = std::move(shaped);
  KeepMetadata(job, {api::kSweepNameLabel, api::kTrialIndexLabel});
  CapSize(job);
  return true;
}

int64_t TooLargeBytes(const Json& obj) {
  if (!obj.is_object()) return 0;
  auto it = obj.find(kTooLargeField);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string TooLargeMessage(const std::string& what, int64_t bytes) {
  return what + " is " + std::to_string(bytes) +
         " bytes of JSON without its annotations, more than the " +
         std::to_string(kMaxCachedObjectBytes) +
         " the operator caches of one object; it is not acted on until it is smaller (a smaller "
         "spec.template)";
}

}  // namespace petname::controller
