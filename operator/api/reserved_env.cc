#include "operator/api/reserved_env.h"

#include <algorithm>

namespace petname::api {

const std::vector<std::string>& ReservedEnvNames() {
  static const std::vector<std::string> kNames = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR",
                                                  "MASTER_PORT"};
  return kNames;
}

const std::vector<std::string>& ReservedEnvPrefixes() {
  static const std::vector<std::string> kPrefixes = {"PET_", "PETNAME_"};
  return kPrefixes;
}

bool ReservedEnvName(const std::string& name) {
  const std::vector<std::string>& names = ReservedEnvNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  for (const std::string& prefix : ReservedEnvPrefixes()) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string ReservedEnvCel(const std::string& var) {
  std::string cel = "!(" + var + ".name in [";
  for (size_t i = 0; i < ReservedEnvNames().size(); ++i) {
    cel += (i > 0 ? ", '" : "'") + ReservedEnvNames()[i] + "'";
  }
  cel += "])";
  for (const std::string& prefix : ReservedEnvPrefixes()) {
    cel += " && !" + var + ".name.startsWith('" + prefix + "')";
  }
  return cel;
}

Status CheckSpecEnv(const nlohmann::json& env) {
  std::string taken;
  for (const nlohmann::json& e : env) {
    const nlohmann::json* name = e.is_object() && e.contains("name") ? &e["name"] : nullptr;
    if (name != nullptr && name->is_string() && ReservedEnvName(name->get<std::string>())) {
      taken += (taken.empty() ? "\"" : ", \"") + name->get<std::string>() + "\"";
    }
  }
  if (taken.empty()) return Status::Ok();
  return Status::InvalidArgument(
      "spec.env sets " + taken +
      ", which the operator sets (the rendezvous, the job's identity and its rendezvous secret: "
      "RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and names starting with PET_ or "
      "PETNAME_); set your own variables under other names");
}

}  // namespace petname::api
