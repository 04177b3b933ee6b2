// QueueSync: the I/O of the Kueue integration (the decisions are in queue_admission.h): reads a
// job's Workload from the workloads informer, applies the admission to the job (replicas =
// the admitted count, the ResourceFlavors' nodeLabels and tolerations: api::ApplyFlavor), and
// carries out a Plan's WorkloadAction (create, clear the reservation, finish) plus the Workload's
// PodsReady condition (WorkloadPodsReady). Status writes are PUTs of the cached object with its
// resourceVersion, so a write racing Kueue's gets 409 and the job is reconciled again from fresh
// state.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/controller/job_status.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"

namespace petname::controller {

// /apis/kueue.x-k8s.io/v1beta2[/namespaces/NS]/workloads
std::string WorkloadsPath(const std::string& ns);

class QueueSync {
 public:
  // `workloads` is null when the Workload API is not served (the operator checked at start).
  QueueSync(kube::RestClient* client, const kube::Informer* workloads, kube::EventRecorder* events);

  // The job's queue state and, when it exists, its Workload object (*wl).
  QueueState Observe(const api::Job& job, nlohmann::json* wl) const;
  // With an admitted Workload: job->spec.replicas becomes the admitted count (no I/O).
  void ApplyAdmittedReplicas(const QueueState& queue, api::Job* job) const;
  // With an admitted Workload: the assigned flavors' node labels and tolerations go to the rank
  // pods (one GET per ResourceFlavor: called only when rank pods are about to be created).
  Status ApplyFlavors(const QueueState& queue, api::Job* job) const;
  // Carries out plan.workload; `requested` is the job as the user asked for it (all replicas),
  // `wl` the observed Workload.
  Status Act(const api::Job& requested, const Plan& plan, const QueueState& queue,
             const nlohmann::json& wl) const;

 private:
  Status CreateWorkload(const api::Job& job) const;
  Status WriteWorkloadStatus(const nlohmann::json& wl) const;
  std::optional<int32_t> Priority(const api::Job& job) const;

  kube::RestClient* const client_;
  const kube::Informer* const workloads_;
  kube::EventRecorder* const events_;
};

}  // namespace petname::controller
