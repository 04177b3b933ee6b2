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

namespace {

constexpr char kPetnamePrefix[] = "PETNAME_";

bool Listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "['A', 'B']"
std::string CelList(const std::vector<std::string>& names) {
  std::string list = "[";
  for (size_t i = 0; i < names.size(); ++i) list += (i > 0 ? ", '" : "'") + names[i] + "'";
  return list + "]";
}

}  // namespace

const std::vector<std::string>& OpenPetnameEnvNames() {
  static const std::vector<std::string> kNames = {"PETNAME_KATIB_METRICS_FILE"};
  return kNames;
}

bool ReservedEnvName(const std::string& name) {
  if (Listed(ReservedEnvNames(), name)) return true;
  for (const std::string& prefix : ReservedEnvPrefixes()) {
    if (name.rfind(prefix, 0) == 0) {
      return !(prefix == kPetnamePrefix && Listed(OpenPetnameEnvNames(), name));
    }
  }
  return false;
}

std::string ReservedEnvCel(const std::string& var) {
  std::string cel = "!(" + var + ".name in " + CelList(ReservedEnvNames()) + ")";
  for (const std::string& prefix : ReservedEnvPrefixes()) {
    const std::string starts = var + ".name.startsWith('" + prefix + "')";
    if (prefix == kPetnamePrefix) {
      cel += " && (!" + starts + " || " + var + ".name in " + CelList(OpenPetnameEnvNames()) + ")";
    } else {
      cel += " && !" + starts;
    }
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
      "PETNAME_ other than PETNAME_KATIB_METRICS_FILE); set your own variables under other names");
}

}  // namespace petname::api
