#include "operator/controller/network_policy.h"

namespace petname::controller {

using Json = nlohmann::json;

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
  return {
      {"podSelector", selector}, {"policyTypes", Json::array({"Ingress"})}, {"ingress", ingress}};
}

std::string NetworkPoliciesPath(const std::string& ns) {
  const std::string base = "/apis/networking.k8s.io/v1";
  return ns.empty() ? base + "/networkpolicies" : base + "/namespaces/" + ns + "/networkpolicies";
}

}  // namespace petname::controller
