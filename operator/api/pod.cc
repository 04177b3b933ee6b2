#include "operator/api/pod.h"

#include "operator/api/job.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::api {
namespace {

using Json = nlohmann::json;

const Json* ArrayAt(const Json& obj, const char* pointer) {
  Json::json_pointer ptr(pointer);
  if (!obj.contains(ptr) || !obj.at(ptr).is_array()) return nullptr;
  return &obj.at(ptr);
}

std::optional<Termination> TerminationAt(const Json& container, const char* pointer) {
  Json::json_pointer ptr(pointer);
  if (!container.contains(ptr) || !container.at(ptr).is_object()) return std::nullopt;
  const Json& t = container.at(ptr);
  return Termination{static_cast<int>(kube::IntAt(t, "/exitCode", -1)),
                     kube::StringAt(t, "/reason"), kube::StringAt(t, "/message")};
}

std::optional<Termination> TrainerTerminated(const Json& pod) {
  const Json* statuses = ArrayAt(pod, "/status/containerStatuses");
  if (statuses == nullptr || statuses->empty()) return std::nullopt;
  const Json* chosen = &statuses->front();
  for (const Json& c : *statuses) {
    if (kube::StringAt(c, "/name") == "trainer") chosen = &c;
  }
  std::optional<Termination> now = TerminationAt(*chosen, "/state/terminated");
  return now ? now : TerminationAt(*chosen, "/lastState/terminated");
}

void InitFailed(const Json& pod, ObservedPod* out) {
  const Json* statuses = ArrayAt(pod, "/status/initContainerStatuses");
  if (statuses == nullptr) return;
  for (const Json& c : *statuses) {
    std::optional<Termination> t = TerminationAt(c, "/state/terminated");
    if (!t) t = TerminationAt(c, "/lastState/terminated");
    if (t && t->exit_code != 0) {
      out->init_failed = t;
      out->init_failed_name = kube::StringAt(c, "/name");
      return;
    }
  }
}

void AddWaiting(const Json& pod, const char* pointer, bool init, ObservedPod* out) {
  const Json* statuses = ArrayAt(pod, pointer);
  if (statuses == nullptr) return;
  for (const Json& c : *statuses) {
    Json::json_pointer waiting("/state/waiting");
    if (!c.is_object() || !c.contains(waiting) || !c.at(waiting).is_object()) continue;
    const Json& w = c.at(waiting);
    out->waiting.push_back(WaitingContainer{kube::StringAt(c, "/name"), kube::StringAt(c, "/image"),
                                            init, kube::StringAt(w, "/reason"),
                                            kube::StringAt(w, "/message")});
  }
}

}  // namespace

int LabelNumber(const std::string& value, int fallback) {
  if (value.empty() || value.size() > 9 ||
      value.find_first_not_of("0123456789") != std::string::npos) {
    return fallback;
  }
  return std::stoi(value);
}

const PodCondition* ObservedPod::Condition(const std::string& type) const {
  for (const PodCondition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool ObservedPod::ConditionTrue(const std::string& type) const {
  const PodCondition* c = Condition(type);
  return c != nullptr && c->status == "True";
}

ObservedPod PodFromJson(const Json& pod) {
  ObservedPod out;
  out.name = kube::Name(pod);
  out.rank = LabelNumber(kube::Label(pod, kRankLabel), -1);
  out.restart_generation = LabelNumber(kube::Label(pod, kRestartGenerationLabel), 0);
  out.deleting = !kube::StringAt(pod, "/metadata/deletionTimestamp").empty();
  out.phase = kube::StringAt(pod, "/status/phase");
  out.reason = kube::StringAt(pod, "/status/reason");
  out.message = kube::StringAt(pod, "/status/message");
  out.pod_ip = kube::StringAt(pod, "/status/podIP");
  int64_t deleted = 0;
  if (kube::ParseTime(kube::StringAt(pod, "/metadata/deletionTimestamp"), &deleted)) {
    out.deletion_time = deleted;
  }
  int64_t created = 0;
  if (kube::ParseTime(kube::StringAt(pod, "/metadata/creationTimestamp"), &created)) {
    out.creation_time = created;
  }
  if (const Json* conds = ArrayAt(pod, "/status/conditions")) {
    for (const Json& c : *conds) {
      PodCondition pc{kube::StringAt(c, "/type"), kube::StringAt(c, "/status"),
                      kube::StringAt(c, "/reason"), kube::StringAt(c, "/message"), std::nullopt};
      int64_t t = 0;
      if (kube::ParseTime(kube::StringAt(c, "/lastTransitionTime"), &t)) {
        pc.last_transition_time = t;
      }
      out.conditions.push_back(std::move(pc));
    }
  }
  out.trainer_terminated = TrainerTerminated(pod);
  InitFailed(pod, &out);
  AddWaiting(pod, "/status/initContainerStatuses", true, &out);
  AddWaiting(pod, "/status/containerStatuses", false, &out);
  return out;
}

}  // namespace petname::api
