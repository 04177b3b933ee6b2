#include "operator/kube/yaml_json.h"

#include <string>

namespace petname::kube {

nlohmann::json YamlToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = YamlToJson(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const YAML::Node& item : node) out.push_back(YamlToJson(item));
    return out;
  }
  if (!node.IsScalar()) return nullptr;
  const std::string text = node.as<std::string>();
  if (node.Tag() != "!" && (text == "true" || text == "false")) return text == "true";
  return text;
}

}  // namespace petname::kube
