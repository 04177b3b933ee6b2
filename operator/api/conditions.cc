#include "operator/api/conditions.h"

namespace petname::api {

void SetCondition(nlohmann::json* conditions, const std::string& type, bool status,
                  const std::string& reason, const std::string& message, const std::string& now) {
  if (!conditions->is_array()) *conditions = nlohmann::json::array();
  const std::string value = status ? "True" : "False";
  nlohmann::json cond = {{"type", type},
                         {"status", value},
                         {"reason", reason},
                         {"message", message},
                         {"lastTransitionTime", now}};
  for (nlohmann::json& c : *conditions) {
    if (c.value("type", "") != type) continue;
    if (c.value("status", "") == value && c.contains("lastTransitionTime")) {
      cond["lastTransitionTime"] = c["lastTransitionTime"];
    }
    c = std::move(cond);
    return;
  }
  conditions->push_back(std::move(cond));
}

nlohmann::json FindCondition(const nlohmann::json& conditions, const std::string& type) {
  if (!conditions.is_array()) return nullptr;
  for (const nlohmann::json& c : conditions) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

}  // namespace petname::api
