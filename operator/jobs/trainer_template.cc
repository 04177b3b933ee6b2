#include "operator/jobs/trainer_template.h"

#include <set>

#include "operator/api/reserved_env.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kField[] = "spec.template.spec.containers[\"trainer\"]";

// True when `path` is `owned` or lies under it (both absolute; trailing slashes ignored).
bool Under(std::string path, std::string owned) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  while (owned.size() > 1 && owned.back() == '/') owned.pop_back();
  return path == owned || path.rfind(owned == "/" ? owned : owned + "/", 0) == 0;
}

void MergeEnv(const Json& extra, Json* trainer, std::vector<std::string>* conflicts) {
  std::set<std::string> taken;
  for (const Json& e : (*trainer)["env"]) taken.insert(e.value("name", ""));
  for (const Json& e : extra) {
    const std::string name = e.is_object() ? e.value("name", "") : "";
    if (taken.count(name) || api::ReservedEnvName(name)) {
      conflicts->push_back(std::string(kField) + ".env: \"" + name +
                           "\" is set by the operator (rendezvous, the job's identity, or the "
                           "job's spec.env); set your own variables under other names");
      continue;
    }
    (*trainer)["env"].push_back(e);
    taken.insert(name);
  }
}

void MergeMounts(const Json& extra, Json* trainer, std::vector<std::string>* conflicts) {
  std::vector<std::string> owned = {"/dev/termination-log"};
  for (const Json& m : (*trainer)["volumeMounts"]) owned.push_back(m.value("mountPath", ""));
  for (const Json& m : extra) {
    const std::string path = m.is_object() ? m.value("mountPath", "") : "";
    bool clash = false;
    for (const std::string& own : owned) {
      if (!own.empty() && Under(path, own)) {
        conflicts->push_back(std::string(kField) + ".volumeMounts: mountPath \"" + path +
                             "\" is, or lies under, \"" + own +
                             "\", which the operator mounts (checkpoints, dataset, /dev/shm, "
                             "the termination log)");
        clash = true;
        break;
      }
    }
    if (!clash) (*trainer)["volumeMounts"].push_back(m);
  }
}

}  // namespace

void MergeTrainerTemplate(const Json& extra, Json* trainer, std::vector<std::string>* conflicts) {
  if (!extra.is_object()) return;
  for (const auto& [field, value] : extra.items()) {
    if (field == "name") continue;
    if (field != "env" && field != "envFrom" && field != "volumeMounts") {
      conflicts->push_back(std::string(kField) + "." + field +
                           " is the operator's: the template may add only env, envFrom and "
                           "volumeMounts to the trainer container");
      continue;
    }
    if (!value.is_array()) {
      conflicts->push_back(std::string(kField) + "." + field + " must be a list");
      continue;
    }
    if (field == "env") {
      MergeEnv(value, trainer, conflicts);
    } else if (field == "volumeMounts") {
      MergeMounts(value, trainer, conflicts);
    } else {
      for (const Json& source : value) (*trainer)["envFrom"].push_back(source);
    }
  }
}

}  // namespace petname::controller
