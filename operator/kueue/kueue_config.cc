#include "operator/kueue/kueue_config.h"

#include <exception>
#include <string>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "operator/kube/yaml_json.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kNameLabel[] = "kubernetes.io/metadata.name";

kube::LabelSelector DefaultNamespaces(const std::string& kueue_namespace) {
  return {{{kNameLabel, kube::LabelRequirement::Op::kNotIn, {"kube-system", kueue_namespace}}}};
}

}  // namespace

KueueConfig DefaultKueueConfig() {
  KueueConfig c;
  c.managed_namespaces = DefaultNamespaces("kueue-system");
  return c;
}

Status ParseKueueConfig(const std::string& yaml, KueueConfig* out) {
  Json root;
  try {
    root = kube::YamlToJson(YAML::Load(yaml));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("Kueue configuration: not YAML: ") + e.what());
  }
  if (!root.is_object() || root.value("kind", Json()) != "Configuration" ||
      root.value("apiVersion", std::string()).rfind("config.kueue.x-k8s.io/", 0) != 0) {
    return Status::InvalidArgument(
        "Kueue configuration: not a config.kueue.x-k8s.io Configuration (apiVersion, kind)");
  }
  KueueConfig c;
  const Json manage = root.value("manageJobsWithoutQueueName", Json(false));
  if (!manage.is_boolean()) {
    return Status::InvalidArgument("Kueue configuration: manageJobsWithoutQueueName is not a bool");
  }
  c.manage_jobs_without_queue_name = manage.get<bool>();
  const Json ns = root.value("namespace", Json("kueue-system"));
  if (!ns.is_string()) return Status::InvalidArgument("Kueue configuration: namespace is not text");
  c.managed_namespaces = DefaultNamespaces(ns.get<std::string>());
  if (root.contains("managedJobsNamespaceSelector")) {
    const Status s =
        kube::ParseLabelSelector(root["managedJobsNamespaceSelector"], &c.managed_namespaces);
    if (!s.ok()) {
      return Status::InvalidArgument("Kueue configuration: managedJobsNamespaceSelector: " +
                                     s.message());
    }
  }
  const Json keys = root.value("/integrations/labelKeysToCopy"_json_pointer, Json::array());
  if (!keys.is_array()) {
    return Status::InvalidArgument(
        "Kueue configuration: integrations.labelKeysToCopy is not a list");
  }
  for (const Json& k : keys) {
    if (!k.is_string()) {
      return Status::InvalidArgument(
          "Kueue configuration: integrations.labelKeysToCopy has an entry that is not text");
    }
    c.label_keys_to_copy.push_back(k.get<std::string>());
  }
  *out = std::move(c);
  return Status::Ok();
}

bool NamespaceManaged(const KueueConfig& config, const std::map<std::string, std::string>& labels) {
  return kube::Matches(config.managed_namespaces, labels);
}

}  // namespace petname::controller
