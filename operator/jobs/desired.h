// Desired: the objects that should exist for a PetNameTrainingJob, computed by a pure function
// of the job and what was observed (no server, no clock), and Diff: what to create and delete to
// get there. Everything desired carries the job's metadata (job_metadata.h: controller
// ownerReference, labels app.kubernetes.io/name=petname and petname.dev/job-name=<job>).
//
// For job J with N replicas in namespace NS:
//  - headless Service J (clusterIP None, publishNotReadyAddresses) selecting J's pods, ports
//    rendezvous (masterPort) and metrics (metrics.port);
//  - pods J-rank-0 .. J-rank-(N-1) (rank_pod.h: environment, `petname train` arguments, volumes,
//    ports, the template merged in, the gang's labels);
//  - with scheduling.gang.enabled, the PodGroup (gang.h; minMember counts pods), created before
//    the pods;
//  - with NetworkPolicyOptions.enabled (the operator's --network-policy, on by default), the
//    NetworkPolicy J (network_policy.h).
// Which pods exist is decided by ComputeStatus (lifecycle.h) as a PodAction. The rendezvous Secret
// the pods read is added to Diff's creates by the reconciler (rendezvous_secret.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"
#include "operator/jobs/network_policy.h"

namespace petname::controller {

using Json = nlohmann::json;

// The job's pods, services and network policies as the informers see them (selected by
// petname.dev/job-name; may include objects other owners made with the same labels).
struct Observed {
  std::vector<Json> pods;
  std::vector<Json> services;
  std::vector<Json> pod_groups;  // the job's PodGroup when it exists
  std::vector<Json> network_policies;
};

// What should happen to the job's rank pods.
enum class PodAction {
  kRun,             // every rank of the current restart generation exists; others are deleted
  kStop,            // no rank pods (suspended, restarting, waiting for the PodGroup)
  kCleanupRunning,  // finished: delete the pods that have not finished, keep the rest
  kCleanupAll,      // finished: delete every pod
  kKeep,            // finished: keep every pod for inspection
};

struct DesiredState {
  std::vector<Json> services;
  std::vector<Json> network_policies;
  std::vector<Json> pod_groups;  // created before the pods
  std::vector<Json> pods;
  PodAction action = PodAction::kRun;
};

// Pure: depends only on the job (spec, status.restarts), `action` and `policy`.
DesiredState Desired(const api::Job& job, PodAction action = PodAction::kRun,
                     const NetworkPolicyOptions& policy = {});

struct Actions {
  std::vector<Json> create;  // services, network policies, pod groups, then pods in rank order
  std::vector<Json> update;  // the job's PodGroup with a new minMember (ResizedPodGroup, gang.h)
  std::vector<std::string> delete_pods;  // controlled pods not desired (or of another generation)
  std::vector<std::string> conflicts;    // desired names held by objects this job does not own
};

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed);

}  // namespace petname::controller
