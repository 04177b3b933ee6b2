#include "operator/jobs/network_policy.h"

#include <algorithm>

namespace petname::controller {

using Json = nlohmann::json;

bool NeedsEgress(const api::JobSpec& spec) {
  if (!spec.dataset_url.empty()) return true;
  const Json& pod = spec.pod_template.spec;
  // Entries of pod[key] other than the trainer's (the CRD keeps that name out of initContainers).
  auto adds = [&pod](const char* key) {
    auto it = pod.find(key);
    if (it == pod.end() || !it->is_array()) return false;
    return std::any_of(it->begin(), it->end(), [](const Json& c) {
      return !c.is_object() || c.value("name", "") != "trainer";
    });
  };
  return adds("initContainers") || adds("containers");
}

Json NetworkPolicySpec(const api::Job& job, const Json& metrics_from) {
  const Json selector = {
      {"matchLabels", {{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, job.name}}}};
  Json ingress = Json::array({{{"from", Json::array({{{"podSelector", selector}}})}}});
  if (metrics_from.is_array() && !metrics_from.empty()) {
    Json port = {{"protocol", "TCP"}, {"port", job.spec.metrics_port}};
    const int procs = api::ProcessesPerPod(job.spec);
    if (procs > 1) port["endPort"] = job.spec.metrics_port + procs - 1;
    ingress.push_back({{"from", metrics_from}, {"ports", Json::array({port})}});
  }
  Json spec = {
      {"podSelector", selector}, {"policyTypes", Json::array({"Ingress"})}, {"ingress", ingress}};
  if (!NeedsEgress(job.spec)) {
    spec["policyTypes"].push_back("Egress");
    spec["egress"] = Json::array({{{"to", Json::array({{{"podSelector", selector}}})}},
                                  {{"ports", Json::array({{{"protocol", "UDP"}, {"port", 53}},
                                                          {{"protocol", "TCP"}, {"port", 53}}})}}});
  }
  return spec;
}

std::string NetworkPoliciesPath(const std::string& ns) {
  const std::string base = "/apis/networking.k8s.io/v1";
  return ns.empty() ? base + "/networkpolicies" : base + "/namespaces/" + ns + "/networkpolicies";
}

}  // namespace petname::controller
