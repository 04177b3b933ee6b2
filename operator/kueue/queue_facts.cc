#include "operator/kueue/queue_facts.h"

#include <map>
#include <set>
#include <utility>

#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kKueueApis[] = "/apis/kueue.x-k8s.io/v1beta2";
constexpr char kPriorityClasses[] = "/apis/scheduling.k8s.io/v1/priorityclasses";
constexpr char kNamespaceNameLabel[] = "kubernetes.io/metadata.name";

bool ValueOf(const Json& cls, int32_t* value) {
  if (!cls.contains("value") || !cls["value"].is_number_integer()) return false;
  *value = cls["value"].get<int32_t>();
  return true;
}

}  // namespace

QueueFacts::QueueFacts(kube::RestClient* client, KueueConfig config)
    : client_(client), config_(std::move(config)) {}

Status QueueFacts::Get(const std::string& path, const std::string& what, bool* found,
                       Json* body) const {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("GET", path, nullptr, &resp));
  *found = resp.code == 200;
  if (resp.code == 200) {
    *body = std::move(resp.body);
    return Status::Ok();
  }
  if (resp.code == 404) return Status::Ok();
  return Status::Unavailable("get " + what + ": " + kube::ApiMessage(resp));
}

Status QueueFacts::ReadPriority(const api::Job& job, const Json& pod,
                                api::WorkloadPriority* priority, bool* missing) const {
  *priority = api::WorkloadPriority{};
  *missing = false;
  bool found = false;
  Json cls;
  if (std::string name = kube::Label(job.object, api::kPriorityClassLabel); !name.empty()) {
    priority->kind = api::WorkloadPriority::Kind::kWorkloadPriorityClass;
    priority->name = name;
    const std::string what = "WorkloadPriorityClass " + name;
    PETNAME_RETURN_IF_ERROR(
        Get(std::string(kKueueApis) + "/workloadpriorityclasses/" + name, what, &found, &cls));
    *missing = !found;
    if (found && !ValueOf(cls, &priority->value)) return Status::Unavailable(what + ": no value");
    return Status::Ok();
  }
  if (std::string name = kube::StringAt(pod, "/spec/priorityClassName"); !name.empty()) {
    priority->kind = api::WorkloadPriority::Kind::kPriorityClass;
    priority->name = name;
    const std::string what = "PriorityClass " + name;
    PETNAME_RETURN_IF_ERROR(Get(std::string(kPriorityClasses) + "/" + name, what, &found, &cls));
    *missing = !found;
    if (found && !ValueOf(cls, &priority->value)) return Status::Unavailable(what + ": no value");
    return Status::Ok();
  }
  // The cluster's globalDefault PriorityClass, the lowest when there are several (Kueue's rule).
  Json list;
  PETNAME_RETURN_IF_ERROR(Get(kPriorityClasses, "PriorityClasses", &found, &list));
  for (const Json& item : list.value("items", Json::array())) {
    int32_t value = 0;
    if (!item.value("globalDefault", false) || !ValueOf(item, &value)) continue;
    if (priority->kind == api::WorkloadPriority::Kind::kNone || value < priority->value) {
      *priority = {api::WorkloadPriority::Kind::kPriorityClass, kube::Name(item), value};
    }
  }
  return Status::Ok();
}

Status QueueFacts::NamespaceManaged(const std::string& ns, bool* managed) const {
  std::map<std::string, std::string> labels = {{kNamespaceNameLabel, ns}};
  const std::set<std::string> keys = config_.managed_namespaces.Keys();
  if (keys.empty() || (keys.size() == 1 && *keys.begin() == kNamespaceNameLabel)) {
    *managed = controller::NamespaceManaged(config_, labels);
    return Status::Ok();
  }
  bool found = false;
  Json obj;
  PETNAME_RETURN_IF_ERROR(Get("/api/v1/namespaces/" + ns, "namespace " + ns, &found, &obj));
  if (!found) {
    *managed = false;
    return Status::Ok();
  }
  const Json ns_labels = obj.value("/metadata/labels"_json_pointer, Json::object());
  for (const auto& [key, value] : ns_labels.items()) {
    if (value.is_string()) labels[key] = value.get<std::string>();
  }
  *managed = controller::NamespaceManaged(config_, labels);
  return Status::Ok();
}

Status QueueFacts::DefaultQueueExists(const std::string& ns, bool* exists) const {
  Json obj;
  return Get(std::string(kKueueApis) + "/namespaces/" + ns + "/localqueues/default",
             "LocalQueue default", exists, &obj);
}

}  // namespace petname::controller
