// The NetworkPolicy of a PetNameTrainingJob: which pods may connect to its rank pods. Pure.
//
// For job J, the networking.k8s.io/v1 NetworkPolicy J (desired.h gives it the job's labels and
// controller ownerReference, like its headless Service, so it goes with the job) selects J's rank
// pods (app.kubernetes.io/name=petname, petname.dev/job-name=J) for Ingress and admits:
//  - from J's own rank pods, every port: the rendezvous (masterPort) and the collectives, whose
//    Gloo and NCCL connections use ephemeral ports;
//  - from the peers `metrics_from` (NetworkPolicyPeer objects: the operator's pods, which scrape
//    rank 0's progress, and Prometheus), TCP metrics.port .. metrics.port + P - 1 (the metrics
//    port of every local rank; endPort when P > 1). With no peers there is no such rule: only the
//    job's own pods reach the metrics ports.
// Everything else is refused where the cluster's network plugin enforces NetworkPolicies; the
// kubelet's probes from the node are allowed by Kubernetes whatever the policy says.
// Egress is restricted too when the job runs nothing but the trainer (NeedsEgress false): then the
// rank pods may connect only to J's own rank pods (every port: the rendezvous and the
// collectives) and to port 53 (UDP and TCP) anywhere (DNS: rank 0's name). The trainer reads its
// data and writes its checkpoints on volumes, which the node mounts, not the pod. A job that
// downloads its data (dataset.url: the fetch-data init container) or whose template adds
// containers or init containers (sidecars, whose needs the operator cannot know) gets no egress
// rule. The policy is made with the job's Service and never changed: its rules follow the spec
// as it was then.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

// --network-policy and --network-policy-metrics-from (operator/app/options.h).
struct NetworkPolicyOptions {
  bool enabled = false;
  nlohmann::json metrics_from = nlohmann::json::array();  // NetworkPolicyPeer objects
};

// Whether the job's pods run more than the trainer: a dataset.url download, or containers or
// init containers from its template (a "trainer" entry only adds to the trainer's container).
bool NeedsEgress(const api::JobSpec& spec);

// The policy's spec.
nlohmann::json NetworkPolicySpec(const api::Job& job, const nlohmann::json& metrics_from);

// The NetworkPolicy collection in `ns` ("" = all namespaces).
std::string NetworkPoliciesPath(const std::string& ns);

}  // namespace petname::controller
