// Reconciler: one level-triggered pass for one PetNameTrainingJob key ("namespace/name").
//
// It never trusts an event's content: it reads the job and the job's pods/services from the
// informer caches (which hold what cache_shape.h keeps; a job too large to cache is not acted on:
// it gets a Warning event TooLarge naming its size and the limit) (and, with gang scheduling, GETs
// the job's PodGroup), computes the lifecycle Plan (ComputeStatus, pure) and writes its status
// through the status subresource with the job's resourceVersion *before* acting, so a decision such
// as a gang restart is recorded before its pods are deleted; the Plan's events are recorded once
// that write succeeded. Then it computes Desired(job, plan.pods) (pure), Diff()s it against what
// exists, creates what is missing (PodGroup first, pods with a slow-start window of creates in
// flight: 1, growing by one per success up to 16, and none started after a failure) and deletes
// what the plan says must go. A job whose TTL after finishing expired is deleted (the garbage
// collector removes its pods). A 409 on the status write returns FailedPrecondition and any failed
// action Unavailable, so the key is retried, from fresh cache state, with backoff; *requeue_after
// asks for another pass when a time-based decision (restart backoff, deadline, TTL, unschedulable
// timeout, start-error timeout) falls due. An object that already exists is adopted only when this
// job controls it; a foreign one is left alone. The operator reads no Secret's data: the rendezvous
// Secret (RendezvousSecret, desired.h) is created before the pods; when it exists already (409) it
// is the job's own if this process created it for the job (remembered until the job is gone: the
// pod cache may not show the pods just created yet) or a pod of the job exists (pods are created
// only after it; after an operator restart the caches have synced). Otherwise its metadata alone
// is read (RestClient::GetMetadata): one this job controls may have been made by anyone who could
// point an owner reference at the job, and knows its value, so it is deleted (on the condition
// that it is still the Secret read) and created afresh on the next pass (a Normal event
// RendezvousSecretReplaced says so); one the job does not control is someone else's and is left
// alone: a Warning event RendezvousSecretConflict names it, and no rank pod is created (the key
// is retried with backoff) until it is gone. A
// create the API server refuses as invalid (422, e.g. a bad spec.template field) or forbidden
// (403, e.g. by Pod Security admission or a ResourceQuota) is also recorded as a Warning event
// FailedCreate on the job, with the server's message. With --kueue, a job in a queue (or one
// that was, by its condition QuotaReserved, whose label is gone) is first matched with its
// Workload (kueue/queue_sync.h): it runs with what Kueue admitted (a PodGroup whose
// minMember no longer matches is updated before any pod is created), and the plan's Workload
// action is carried out after the status write. Every pass for a job key, the job gone
// included, also releases the Workloads that a gone job of that name left once its pods are gone
// (kueue/workload_finalizer.h).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
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

class Reconciler {
 public:
  // `kueue`: jobs Kueue manages (kueue/queue_membership.h, with `kueue_config`) wait for Kueue's
  // admission (kueue/queue_admission.h); without it the label means nothing to the operator.
  Reconciler(kube::RestClient* client, Caches caches, kube::EventRecorder* events,
             ReconcileHooks hooks = {}, bool kueue = false, NetworkPolicyOptions policy = {},
             KueueConfig kueue_config = DefaultKueueConfig());

  // *requeue_after is set to 0 or to the seconds after which the key needs another pass.
  Status Reconcile(const std::string& key, int64_t* requeue_after);

  int64_t creates() const { return creates_.load(); }

 private:
  // `pods_exist`: the cache holds a pod this job controls (its rendezvous Secret is then the one
  // the operator created before that pod).
  Status CreateAll(const api::Job& job, const std::vector<nlohmann::json>& objects,
                   bool pods_exist);
  Status Create(const api::Job& job, const nlohmann::json& obj, bool pods_exist);
  // The rendezvous Secret exists (409) and no pod of the job does: deletes it when the job
  // controls it, so that the next pass creates a fresh one, else reports the conflict; returns
  // FailedPrecondition.
  Status ReplaceSecret(const api::Job& job, const std::string& path, const std::string& name);
  // Whether this process created the rendezvous Secret of `job`; Remember records that it did.
  bool CreatedSecret(const api::Job& job);
  void RememberSecret(const api::Job& job);
  Status DeletePod(const api::Job& job, const std::string& name);
  Status WriteStatus(const api::Job& job, const api::JobStatus& status);
  Status ObservePodGroup(const api::Job& job, PodGroupState* state,
                         std::vector<nlohmann::json>* groups);
  Status DeleteJob(const api::Job& job);
  // PUT of the job's PodGroup with a new minMember (Diff's update).
  Status UpdatePodGroup(const api::Job& job, const nlohmann::json& group);

  kube::RestClient* const client_;
  const Caches caches_;
  kube::EventRecorder* const events_;
  const ReconcileHooks hooks_;
  const bool kueue_;
  const NetworkPolicyOptions policy_;
  const QueueSync queue_sync_;
  std::atomic<int64_t> creates_{0};
  // Job key -> uid of each job whose rendezvous Secret this process created.
  std::mutex secrets_mu_;
  std::map<std::string, std::string> created_secrets_;
};

}  // namespace petname::controller
