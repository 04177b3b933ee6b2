#include "operator/jobs/gang.h"

#include "operator/kube/object.h"

namespace petname::controller {
namespace {

bool Volcano(const api::JobSpec& spec) { return spec.gang_scheduler == "volcano"; }

std::string GroupVersion(const api::JobSpec& spec) {
  return Volcano(spec) ? "scheduling.volcano.sh/v1beta1" : "scheduling.x-k8s.io/v1alpha1";
}

}  // namespace

std::string PodGroupsPath(const api::JobSpec& spec, const std::string& ns) {
  return "/apis/" + GroupVersion(spec) + "/namespaces/" + ns + "/podgroups";
}

nlohmann::json PodGroup(const api::Job& job) {
  return {{"apiVersion", GroupVersion(job.spec)},
          {"kind", "PodGroup"},
          {"metadata",
           {{"name", job.name},
            {"namespace", job.ns},
            {"labels", {{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, job.name}}},
            {"ownerReferences", nlohmann::json::array({kube::ControllerRef(job.object)})}}},
          {"spec", {{"minMember", job.spec.gang_min_available}}}};
}

std::optional<nlohmann::json> ResizedPodGroup(const nlohmann::json& have,
                                              const nlohmann::json& want) {
  const nlohmann::json::json_pointer member("/spec/minMember");
  if (have.value(member, nlohmann::json()) == want.value(member, nlohmann::json())) {
    return std::nullopt;
  }
  nlohmann::json out = have;
  out[member] = want.at(member);
  return out;
}

void JoinGang(const api::Job& job, nlohmann::json* pod) {
  nlohmann::json& meta = (*pod)["metadata"];
  if (Volcano(job.spec)) {
    meta["annotations"]["scheduling.k8s.io/group-name"] = job.name;
  } else {
    meta["labels"]["scheduling.x-k8s.io/pod-group"] = job.name;
  }
  nlohmann::json& spec = (*pod)["spec"];
  if (!spec.contains("schedulerName")) {
    spec["schedulerName"] = Volcano(job.spec) ? "volcano" : "scheduler-plugins-scheduler";
  }
}

}  // namespace petname::controller
