// Reconciler: one level-triggered pass for one PetNameTrainingJob key ("namespace/name"), in
// controller-runtime's order: observe, plan and write the status, compute the desired objects,
// diff them against what exists, act.
//
// It never trusts an event's content:
//  1. Observe: the job and its pods/services/network policies from the informer caches (which
//     hold what cache_shape.h keeps; a job too large to cache is not acted on: it gets a Warning
//     event TooLarge naming its size and the limit), with gang scheduling a GET of its PodGroup,
//     and with --kueue its Workload (kueue/queue_sync.h): a job in a queue (or one that was, by its
//     condition QuotaReserved, whose label is gone) runs with what Kueue admitted.
//  2. Plan and status: the lifecycle Plan (ComputeStatus, pure) with the training progress, written
//     through the status subresource with the job's resourceVersion *before* acting, so a decision
//     such as a gang restart is recorded before its pods are deleted; the Plan's events are
//     recorded once that write succeeded. A job whose TTL after finishing expired is deleted
//     instead (the garbage collector removes its pods).
//  3. Desired and diff: Desired(job, plan.pods) (pure) against what exists (Diff); with Kueue the
//     admitted flavors are applied to pods not created yet.
//  4. Act (job_writer.h): PodGroup updates first (a PodGroup whose minMember no longer matches is
//     updated before any pod is created), then the creates (the rendezvous Secret before the pods:
//     rendezvous_secret.h, secret_ownership.h), the pod deletes the plan asks for, and the plan's
//     Workload action (after the status write).
// A 409 on the status write returns FailedPrecondition and any failed action Unavailable, so the
// key is retried, from fresh cache state, with backoff; *requeue_after asks for another pass when
// a time-based decision (restart backoff, deadline, TTL, unschedulable timeout, start-error
// timeout) falls due. Every pass for a job key, the job gone included, also releases the Workloads
// that a gone job of that name left once its pods are gone (kueue/workload_finalizer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/jobs/desired.h"
#include "operator/jobs/job_writer.h"
#include "operator/jobs/lifecycle.h"
#include "operator/jobs/network_policy.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"
#include "operator/kueue/queue_sync.h"
#include "operator/progress/progress_store.h"

namespace petname::controller {

struct Caches {
  const kube::Informer* jobs;
  const kube::Informer* pods;
  const kube::Informer* services;
  // The jobs' NetworkPolicies; null unless the reconciler's NetworkPolicyOptions are enabled.
  const kube::Informer* network_policies = nullptr;
  // Kueue's Workloads of the jobs (kueue/queue_sync.h); null without --kueue or when Kueue's API is
  // not served.
  const kube::Informer* workloads = nullptr;
};

// Optional observers of a reconcile (operations: metrics, training progress).
struct ReconcileHooks {
  // The scraped training progress to put into the status (see progress/progress_store.h); the
  // reconcile adds the final progress a finished rank 0 leaves in its termination message.
  progress::ProgressStore* progress = nullptr;
  // After a successful status write, with the status read and the status written.
  std::function<void(const api::Job& job, const api::JobStatus& old_status,
                     const api::JobStatus& new_status)>
      status_written;
};

// What a pass observed of a job (step 1).
struct Observation {
  Observed objects;  // pods, services, network policies, PodGroup: Diff's input
  PodGroupState group = PodGroupState::kNotWanted;
  std::vector<api::ObservedPod> owned;  // the pods the job controls
  api::Job requested;                   // the job as read, before Kueue's admission applies
  QueueState queue;                     // with --kueue
  nlohmann::json workload;              // the job's Workload, when it has one
  int64_t orphans_in = 0;  // seconds until a gone job's Workloads are looked at again; 0: none
};

class Reconciler {
 public:
  // `kueue`: jobs Kueue manages (kueue/queue_membership.h, with `kueue_config`) wait for Kueue's
  // admission (kueue/queue_admission.h); without it the label means nothing to the operator.
  Reconciler(kube::RestClient* client, Caches caches, kube::EventRecorder* events,
             ReconcileHooks hooks = {}, bool kueue = false, NetworkPolicyOptions policy = {},
             KueueConfig kueue_config = DefaultKueueConfig());

  // *requeue_after is set to 0 or to the seconds after which the key needs another pass.
  Status Reconcile(const std::string& key, int64_t* requeue_after);

  int64_t creates() const { return writer_.creates(); }

 private:
  // The job is gone (the garbage collector removes the rest): forgets it and, with Kueue,
  // releases the Workloads it left.
  Status Gone(const std::string& key, int64_t* requeue_after);
  // False when the job cannot be acted on (too large to cache, or a spec the operator cannot
  // read; said in an event or the log): retrying cannot help, a change brings the key back.
  bool Parse(const std::string& key, const nlohmann::json& obj, api::Job* job);
  // Step 1; applies Kueue's admission to job->spec (unless the job is yet to be labelled for the
  // default LocalQueue: seen->queue.default_queue).
  Status Observe(const std::string& key, api::Job* job, Observation* seen);
  Status ObservePodGroup(const api::Job& job, PodGroupState* state,
                         std::vector<nlohmann::json>* groups);
  // Step 2: the plan, with the training progress and its events.
  Plan PlanStatus(const std::string& key, const api::Job& job, const Observation& seen);
  // Step 2: the status write (when it changed), then the plan's events.
  Status RecordStatus(const std::string& key, const api::Job& job, const Plan& plan);
  Status WriteStatus(const api::Job& job, const api::JobStatus& status);
  // Step 3; *refused when Kueue's flavors cannot be applied (the job's Workload is finished).
  Status DiffDesired(const Plan& plan, const Observation& seen, api::Job* job, Actions* actions,
                     bool* refused);
  // Step 4; the first failure, after every action was tried.
  Status Act(const std::string& key, const api::Job& job, const Plan& plan, const Observation& seen,
             Actions* actions);

  kube::RestClient* const client_;
  const Caches caches_;
  kube::EventRecorder* const events_;
  const ReconcileHooks hooks_;
  const bool kueue_;
  const NetworkPolicyOptions policy_;
  const QueueSync queue_sync_;
  JobWriter writer_;
};

}  // namespace petname::controller
