// WorkloadWriter: the writes of a job's Workload that QueueSync (queue_sync.h) carries out for a
// Plan's WorkloadAction: create the Workload the job asks for, update or replace it to match the
// job, write its status (cleared reservation, finished, PodsReady) and remove Kueue's
// resource-in-use finalizer. Each is one request; none reads the Workload first.
// Writes are PUTs of the cached object with its resourceVersion (a DELETE has it as
// precondition), so a write racing Kueue's gets 409 and the job is reconciled again from fresh
// state. A create answered 409 is taken as done only when the job controls the Workload that
// holds the name; else a Warning event WorkloadConflict, and the next pass reads the conflict
// into QueueState.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/rest_client.h"
#include "operator/kueue/queue_admission.h"

namespace petname::controller {

// /apis/kueue.x-k8s.io/v1beta2[/namespaces/NS]/workloads
std::string WorkloadsPath(const std::string& ns);

// Who holds a Workload's name, for a conflict's message.
std::string WorkloadHolder(const nlohmann::json& wl);

class WorkloadWriter {
 public:
  WorkloadWriter(kube::RestClient* client, kube::EventRecorder* events);

  // kCreate: POSTs `wl`, the Workload `job` asks for (nothing when it is null: the job renders
  // no pod), and records an event CreatedWorkload.
  Status Create(const api::Job& job, const nlohmann::json& wl) const;
  // kUpdate: a PUT of the Workload with the job's pod set, queue and priority (409 if stale);
  // `wanted` is the Workload the job asks for (nothing when it is null).
  Status Update(const api::Job& job, const QueueState& queue, const nlohmann::json& wl,
                const nlohmann::json& wanted) const;
  // kReplace: a DELETE with the Workload's uid and resourceVersion as preconditions.
  Status Replace(const api::Job& job, const QueueState& queue, const nlohmann::json& wl) const;
  // PUT of `wl` to the Workload's status.
  Status WriteStatus(const nlohmann::json& wl) const;
  Status RemoveFinalizer(const nlohmann::json& wl) const;

 private:
  // PUT of `wl` (with its resourceVersion) to the Workload or its `subresource` ("/status").
  Status Put(const nlohmann::json& wl, const std::string& subresource) const;

  kube::RestClient* const client_;
  kube::EventRecorder* const events_;
};

}  // namespace petname::controller
