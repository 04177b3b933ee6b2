#include "operator/kueue/admission_merge.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <utility>

namespace petname::api {
namespace {

using Strings = std::map<std::string, std::string>;

// What the admission sets on the rank pods (Kueue's PodSetInfo).
struct PodSetInfo {
  Strings labels;
  Strings annotations;
  Strings node_selector;
  Json tolerations = Json::array();
};

Strings StringsOf(const Json& o) {
  Strings out;
  if (!o.is_object()) return out;
  for (const auto& [key, value] : o.items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
  }
  return out;
}

void AddTolerations(const Json& from, Json* to) {
  if (!from.is_array()) return;
  for (const Json& t : from) {
    if (std::find(to->begin(), to->end(), t) == to->end()) to->push_back(t);
  }
}

// Adds `from` to *into; a key *into has with another value is a conflict (`whose`: who has it).
Status MergeStrings(const char* field, const Strings& from, const std::string& whose,
                    Strings* into) {
  for (const auto& [key, value] : from) {
    const auto it = into->find(key);
    if (it != into->end() && it->second != value) {
      return Status::FailedPrecondition("conflict for " + std::string(field) + " key " + key +
                                        ": " + whose + " has \"" + it->second +
                                        "\", the admission \"" + value + "\"");
    }
  }
  for (const auto& [key, value] : from) into->emplace(key, value);
  return Status::Ok();
}

Status MergeInfo(const PodSetInfo& from, const std::string& whose, PodSetInfo* into) {
  PETNAME_RETURN_IF_ERROR(MergeStrings("labels", from.labels, whose, &into->labels));
  PETNAME_RETURN_IF_ERROR(MergeStrings("annotations", from.annotations, whose, &into->annotations));
  PETNAME_RETURN_IF_ERROR(
      MergeStrings("nodeSelector", from.node_selector, whose, &into->node_selector));
  AddTolerations(from.tolerations, &into->tolerations);
  return Status::Ok();
}

// Removes the keys the operator reserves on rank pods (ReservedPodKey).
void DropReservedKeys(Strings* keys) {
  for (auto it = keys->begin(); it != keys->end();) {
    it = ReservedPodKey(it->first) ? keys->erase(it) : std::next(it);
  }
}

// The job's nodeSelector where SchedulingField finds it (null when it sets none).
Json NodeSelector(const JobSpec& spec) {
  const Json& tmpl = spec.pod_template.spec;
  if (tmpl.is_object() && tmpl.contains("nodeSelector")) return tmpl["nodeSelector"];
  return spec.scheduling.is_object() ? spec.scheduling.value("nodeSelector", Json()) : Json();
}

// The job's field `key` of the rank pods' spec: spec.template.spec's when the job sets it there,
// else spec.scheduling's.
Json& SchedulingField(JobSpec* spec, const char* key) {
  Json& tmpl = spec->pod_template.spec;
  if (tmpl.is_object() && tmpl.contains(key)) return tmpl[key];
  if (!spec->scheduling.is_object()) spec->scheduling = Json::object();
  return spec->scheduling[key];
}

}  // namespace

Status MergeAdmission(const std::vector<Json>& flavors, const Json& pod_set_updates,
                      JobSpec* spec) {
  PodSetInfo admission;
  for (const Json& flavor : flavors) {
    const Json fspec = flavor.value("spec", Json::object());
    for (const auto& [key, value] : StringsOf(fspec.value("nodeLabels", Json::object()))) {
      admission.node_selector.emplace(key, value);  // the first flavor wins
    }
    AddTolerations(fspec.value("tolerations", Json::array()), &admission.tolerations);
  }
  for (const Json& update : pod_set_updates) {
    PodSetInfo info{StringsOf(update.value("labels", Json::object())),
                    StringsOf(update.value("annotations", Json::object())),
                    StringsOf(update.value("nodeSelector", Json::object())),
                    update.value("tolerations", Json::array())};
    PETNAME_RETURN_IF_ERROR(MergeInfo(info, "another admission check or the flavor", &admission));
  }
  DropReservedKeys(&admission.labels);
  DropReservedKeys(&admission.annotations);

  // Labels and annotations reach the rank pods from spec.labels and from the template.
  JobSpec out = *spec;
  PodSetInfo job{out.labels, out.annotations, StringsOf(NodeSelector(out)), Json::array()};
  job.labels.insert(out.pod_template.labels.begin(), out.pod_template.labels.end());
  job.annotations.insert(out.pod_template.annotations.begin(), out.pod_template.annotations.end());
  PETNAME_RETURN_IF_ERROR(MergeInfo(admission, "the job", &job));
  for (const auto& [key, value] : admission.labels) {
    if (out.labels.count(key) == 0) out.pod_template.labels.emplace(key, value);
  }
  for (const auto& [key, value] : admission.annotations) {
    if (out.annotations.count(key) == 0) out.pod_template.annotations.emplace(key, value);
  }
  if (!admission.node_selector.empty()) {
    Json& selector = SchedulingField(&out, "nodeSelector");
    if (!selector.is_object()) selector = Json::object();
    for (const auto& [key, value] : admission.node_selector) selector[key] = value;
  }
  if (!admission.tolerations.empty()) {
    Json& list = SchedulingField(&out, "tolerations");
    if (!list.is_array()) list = Json::array();
    AddTolerations(admission.tolerations, &list);
  }
  *spec = std::move(out);
  return Status::Ok();
}

namespace {

bool Dns1123Label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return alnum(s.front()) && alnum(s.back());
}

}  // namespace

Json KueuePodLabels(const Json& wl) {
  Json labels = {
      {"kueue.x-k8s.io/podset", kPodSetName},
      {"kueue.x-k8s.io/local-queue-name", wl.value("/spec/queueName"_json_pointer, std::string())}};
  const std::string cq = wl.value("/status/admission/clusterQueue"_json_pointer, std::string());
  if (Dns1123Label(cq)) labels["kueue.x-k8s.io/cluster-queue-name"] = cq;
  return {{"name", kPodSetName}, {"labels", labels}};
}

Status TopologyRefusal(const WorkloadState& wl, const std::vector<Json>& flavors) {
  std::string topology;
  for (const Json& flavor : flavors) {
    const std::string name = flavor.value("/spec/topologyName"_json_pointer, std::string());
    if (!name.empty()) {
      topology = "ResourceFlavor " + flavor.value("/metadata/name"_json_pointer, std::string()) +
                 " has topology " + name;
      break;
    }
  }
  if (topology.empty() && !wl.topology_assigned) return Status::Ok();
  return Status::FailedPrecondition(
      "Kueue placed it by topology-aware scheduling (" +
      (topology.empty() ? std::string("a topologyAssignment") : topology) +
      "), which PetNameTrainingJobs do not support: their rank pods have no scheduling gate or "
      "topology annotations and would not follow the assignment; use a ClusterQueue whose "
      "flavors have no topologyName");
}

}  // namespace petname::api
