// QueueSync: the I/O of the Kueue integration (the decisions are in queue_membership.h,
// queue_admission.h and workload_finalizer.h): reads a job's Workload from the workloads informer
// (on a miss, GETs it by name), what queue_facts.h reads when a decision needs it (the priority
// when the Workload is to be created or the job names another WorkloadPriorityClass, the
// namespace, the LocalQueue "default"), and compares the Workload with the job
// (kueue/workload_drift.h); labels a job for the default LocalQueue; applies the admission to
// the job (Kueue's pod labels, the ResourceFlavors' nodeLabels and tolerations and the admission
// checks' podSetUpdates: api::MergeAdmission; an admission placed by topology-aware scheduling is
// refused: api::TopologyRefusal); and carries out a Plan's WorkloadAction
// (create, update or replace to match the job, clear the reservation, finish), the Workload's
// PodsReady condition (WorkloadPodsReady) and the removal of Kueue's resource-in-use finalizer
// (the writes: kueue/workload_writer.h).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/api/pod.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"
#include "operator/kueue/kueue_config.h"
#include "operator/kueue/queue_admission.h"
#include "operator/kueue/queue_facts.h"
#include "operator/kueue/workload_writer.h"

namespace petname::controller {

class QueueSync {
 public:
  // The pod that rank 0 of a job runs (jobs/desired.h): the pod set of the job's Workload and
  // what its priority is read from.
  using RankPodFn = std::function<nlohmann::json(const api::Job& job)>;

  // `workloads` is null when the Workload API is not served (the operator checked at start).
  QueueSync(kube::RestClient* client, const kube::Informer* workloads, kube::EventRecorder* events,
            KueueConfig config, RankPodFn rank_pod);

  // The job's queue state (whether Kueue manages it: queue_membership.h) and, when it exists, its
  // Workload object (*wl). `first_look`: the operator has not written the job's status yet and it
  // has no pod. Reads nothing for a job without a queue label that is not new and was never in a
  // queue.
  Status Observe(const api::Job& job, bool first_look, QueueState* queue, nlohmann::json* wl) const;
  // QueueState::default_queue: labels the job kueue.x-k8s.io/queue-name: default (a merge patch
  // with the job's resourceVersion: 409 if it changed since it was read) and records an event
  // DefaultQueue; the label's watch event brings the job back.
  Status LabelDefaultQueue(const api::Job& job) const;
  // With an admitted Workload `wl`: the assigned flavors' node labels and tolerations, then the
  // admission checks' podSetUpdates, go to the rank pods (kueue/admission_merge.h; one GET per
  // ResourceFlavor: called only when rank pods are about to be created). When they clash with
  // the job, as Kueue's jobframework does: the Workload is finished with reason FailedToStart
  // (its quota is freed), a Warning event FailedToStart, *refused, and the job is left as it was.
  Status ApplyFlavors(const QueueState& queue, const nlohmann::json& wl, api::Job* job,
                      bool* refused) const;
  // Carries out `action`, the lifecycle plan's WorkloadAction, with `status` the job's status
  // the plan wrote; `requested` is the job as the user asked for it (all replicas), `wl` the
  // observed Workload, `pods` the pods the job controls (ReleaseWorkload).
  Status Act(const api::Job& requested, WorkloadAction action, const api::JobStatus& status,
             const QueueState& queue, const nlohmann::json& wl,
             const std::vector<api::ObservedPod>& pods) const;
  // Removes the finalizer from the Workloads of job `key` ("namespace/name") left by a job that
  // is gone (OrphanedWorkloads), and forgets the warning for a job of that name that is gone;
  // `live_uid`: the uid of the job of that name now, "" when there is none; `pods`: the pods
  // labelled with that job name. *recheck_in: the seconds until a pod still holding an orphan's
  // quota reaches the end of its grace period (pod_quota.h), 0 when none does.
  Status ReleaseOrphans(const std::string& key, const std::string& live_uid,
                        const std::vector<nlohmann::json>& pods, int64_t* recheck_in) const;

 private:
  // The job's Workload from the informer, else by name (Lookup).
  Status FindWorkload(const api::Job& job, QueueState* queue, nlohmann::json* wl) const;
  // On an informer miss: the Workload by name (the cache may lag a create).
  Status Lookup(const api::Job& job, QueueState* queue, nlohmann::json* wl) const;
  // The Workload the job asks for now (null when the job renders no pod); `wl`: the one it has
  // (null when none), whose queue it keeps when the queue-name label was removed.
  nlohmann::json Wanted(const api::Job& job, const QueueState& queue,
                        const nlohmann::json& wl) const;
  // Once per job (while the operator runs): a Warning event QueueLabelRemoved saying that the
  // job's Workload `wl` keeps governing it, or (null) that it waits without one.
  void WarnLabelRemoved(const api::Job& job, const nlohmann::json* wl) const;

  kube::RestClient* const client_;
  const kube::Informer* const workloads_;
  kube::EventRecorder* const events_;
  const QueueFacts facts_;
  const WorkloadWriter writer_;
  const RankPodFn rank_pod_;
  mutable std::mutex mu_;
  // "namespace/name" -> the uid of the job warned; dropped when the job is gone. Guarded by mu_.
  mutable std::map<std::string, std::string> label_removed_warned_;
};

}  // namespace petname::controller
