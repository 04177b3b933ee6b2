#include "operator/jobs/desired.h"

#include <optional>
#include <set>

#include "operator/jobs/gang.h"
#include "operator/jobs/job_metadata.h"
#include "operator/jobs/rank_pod.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

Json Service(const api::Job& job) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", OwnedMetadata(job, job.name)},
          {"spec",
           {{"clusterIP", "None"},
            {"publishNotReadyAddresses", true},
            {"selector", {{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, job.name}}},
            {"ports", Json::array({{{"name", "rendezvous"}, {"port", job.spec.master_port}},
                                   {{"name", "metrics"}, {"port", job.spec.metrics_port}}})}}}};
}

const Json* FindByName(const std::vector<Json>& objects, const std::string& name) {
  for (const Json& o : objects) {
    if (kube::Name(o) == name) return &o;
  }
  return nullptr;
}

// Appends `want` to the create list, or to conflicts when a foreign object holds its name.
void Place(const api::Job& job, const Json& want, const std::vector<Json>& have, Actions* out) {
  const std::string name = kube::Name(want);
  const Json* existing = FindByName(have, name);
  if (existing == nullptr) {
    out->create.push_back(want);
  } else if (!kube::IsControlledBy(*existing, job.uid)) {
    out->conflicts.push_back(name);
  }
}

}  // namespace

DesiredState Desired(const api::Job& job, PodAction action, const NetworkPolicyOptions& policy) {
  DesiredState d;
  d.action = action;
  d.services.push_back(Service(job));
  if (policy.enabled) {
    d.network_policies.push_back({{"apiVersion", "networking.k8s.io/v1"},
                                  {"kind", "NetworkPolicy"},
                                  {"metadata", OwnedMetadata(job, job.name)},
                                  {"spec", NetworkPolicySpec(job, policy.metrics_from)}});
  }
  if (job.spec.gang_enabled && action == PodAction::kRun) d.pod_groups.push_back(PodGroup(job));
  if (action != PodAction::kRun) return d;
  for (int index = 0; index < job.spec.replicas; ++index) d.pods.push_back(RankPod(job, index));
  return d;
}

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed) {
  Actions out;
  for (const Json& s : desired.services) Place(job, s, observed.services, &out);
  for (const Json& n : desired.network_policies) Place(job, n, observed.network_policies, &out);
  for (const Json& g : desired.pod_groups) {
    Place(job, g, observed.pod_groups, &out);
    const Json* have = FindByName(observed.pod_groups, kube::Name(g));
    if (have == nullptr || !kube::IsControlledBy(*have, job.uid)) continue;
    if (std::optional<Json> resized = ResizedPodGroup(*have, g)) out.update.push_back(*resized);
  }
  const int generation = job.status.restarts;
  std::set<std::string> wanted;
  for (const Json& p : desired.pods) wanted.insert(kube::Name(p));
  std::set<std::string> stale;
  for (const Json& p : observed.pods) {
    if (!kube::IsControlledBy(p, job.uid)) continue;
    if (!kube::StringAt(p, "/metadata/deletionTimestamp").empty()) continue;  // going already
    const std::string phase = kube::StringAt(p, "/status/phase");
    bool remove = false;
    switch (desired.action) {
      case PodAction::kRun:
        remove = !wanted.count(kube::Name(p)) || PodGeneration(p) != generation;
        break;
      case PodAction::kStop:
      case PodAction::kCleanupAll:
        remove = true;
        break;
      case PodAction::kCleanupRunning:
        remove = phase != "Succeeded" && phase != "Failed";
        break;
      case PodAction::kKeep:
        break;
    }
    if (remove) {
      out.delete_pods.push_back(kube::Name(p));
      stale.insert(kube::Name(p));
    }
  }
  for (const Json& p : desired.pods) {
    if (!stale.count(kube::Name(p))) Place(job, p, observed.pods, &out);
  }
  return out;
}

}  // namespace petname::controller
