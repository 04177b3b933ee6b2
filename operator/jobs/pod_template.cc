#include "operator/jobs/pod_template.h"

#include <map>
#include <set>

#include "operator/jobs/trainer_template.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// Adds `extra` to the string map metadata[`key`] (created when needed), except keys it has and
// reserved keys.
void MergeMap(const std::map<std::string, std::string>& extra, const std::string& key,
              Json* metadata, std::vector<std::string>* conflicts) {
  const std::string field = "spec.template.metadata." + key;
  for (const auto& [name, value] : extra) {
    if (api::ReservedPodKey(name)) {
      conflicts->push_back(field + ": " + Quoted(name) + " is reserved for the operator");
    } else if (metadata->contains(key) && (*metadata)[key].contains(name)) {
      conflicts->push_back(field + ": " + Quoted(name) +
                           " is already set on the rank pods (by the operator, or by spec." + key +
                           ")");
    } else {
      (*metadata)[key][name] = value;
    }
  }
}

// Names and container ports of the containers in the pod spec.
void Taken(const Json& spec, std::set<std::string>* names, std::set<int64_t>* ports) {
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list)) continue;
    for (const Json& c : spec[list]) {
      names->insert(c.value("name", ""));
      if (!c.contains("ports")) continue;
      for (const Json& p : c["ports"]) {
        if (p.contains("containerPort") && p["containerPort"].is_number_integer()) {
          ports->insert(p["containerPort"].get<int64_t>());
        }
      }
    }
  }
}

// Appends the template's containers of `list` (containers or initContainers) to the pod spec's,
// except those named like one already there and sidecars that would open a port already open.
void MergeContainers(const Json& extra, const char* list, Json* spec,
                     std::vector<std::string>* conflicts) {
  const std::string field = std::string("spec.template.spec.") + list;
  if (!extra.is_array()) {
    conflicts->push_back(field + " must be a list");
    return;
  }
  std::set<std::string> names;
  std::set<int64_t> ports;
  Taken(*spec, &names, &ports);
  for (const Json& c : extra) {
    const std::string name = c.is_object() ? c.value("name", "") : "";
    if (std::string(list) == "containers" && name == kTrainerContainer) {
      for (Json& own : (*spec)["containers"]) {
        if (own.value("name", "") == kTrainerContainer) MergeTrainerTemplate(c, &own, conflicts);
      }
      continue;
    }
    if (names.count(name)) {
      conflicts->push_back(field + ": " + Quoted(name) +
                           " is already a container name in the rank pods (the operator's "
                           "init container \"fetch-data\" with dataset.url, the trainer for "
                           "initContainers, or a duplicate); give yours another name");
      continue;
    }
    bool clash = false;
    if (std::string(list) == "containers" && c.contains("ports") && c["ports"].is_array()) {
      for (const Json& p : c["ports"]) {
        if (!p.is_object() || !p.contains("containerPort")) continue;
        const Json& port = p["containerPort"];
        if (port.is_number_integer() && ports.count(port.get<int64_t>())) {
          conflicts->push_back(field + "[" + Quoted(name) + "]: containerPort " + port.dump() +
                               " is a port of the trainer (metrics, metrics-<k> or rendezvous)");
          clash = true;
        }
      }
    }
    if (clash) continue;
    (*spec)[list].push_back(c);
    names.insert(name);
  }
}

void MergeVolumes(const Json& extra, Json* spec, std::vector<std::string>* conflicts) {
  if (!extra.is_array()) {
    conflicts->push_back("spec.template.spec.volumes must be a list");
    return;
  }
  std::set<std::string> names;
  if (spec->contains("volumes")) {
    for (const Json& v : (*spec)["volumes"]) names.insert(v.value("name", ""));
  }
  for (const Json& v : extra) {
    const std::string name = v.is_object() ? v.value("name", "") : "";
    if (names.count(name)) {
      conflicts->push_back("spec.template.spec.volumes: " + Quoted(name) +
                           " is the name of a volume the operator mounts (checkpoints, dataset, "
                           "shm)");
      continue;
    }
    (*spec)["volumes"].push_back(v);
    names.insert(name);
  }
}

}  // namespace

std::vector<std::string> MergePodTemplate(const api::PodTemplate& tmpl, Json* pod) {
  std::vector<std::string> conflicts;
  MergeMap(tmpl.labels, "labels", &(*pod)["metadata"], &conflicts);
  MergeMap(tmpl.annotations, "annotations", &(*pod)["metadata"], &conflicts);
  Json& spec = (*pod)["spec"];
  for (const auto& [field, value] : tmpl.spec.items()) {
    if (field == "containers" || field == "initContainers") {
      MergeContainers(value, field.c_str(), &spec, &conflicts);
    } else if (field == "volumes") {
      MergeVolumes(value, &spec, &conflicts);
    } else if (field == "restartPolicy" || field == "hostname" || field == "subdomain") {
      conflicts.push_back("spec.template.spec." + field +
                          " is set by the operator on every rank pod");
    } else if (spec.contains(field) && field != "automountServiceAccountToken") {
      // The operator's automountServiceAccountToken (false) is a default the template replaces.
      conflicts.push_back("spec.template.spec." + field + " is also set by spec.scheduling." +
                          field + "; set it in one place");
    } else {
      spec[field] = value;
    }
  }
  return conflicts;
}

}  // namespace petname::controller
