// JobWriter: the writes a reconcile makes for a PetNameTrainingJob's objects (reconciler.h decides
// which): creates, pod deletes, the PodGroup's minMember, and the job's own delete once its TTL
// after finishing expired (the garbage collector removes its pods).
//
// CreateAll creates in order with a slow-start window of creates in flight: 1, growing by one per
// success up to 16, and none started after a failure (as the Job controller's batches). An object
// that already exists (409) is adopted only when this job controls it (the cache lags); a foreign
// one is left alone. The rendezvous Secret's 409 is SecretOwnership's (secret_ownership.h). A
// create the API server refuses as invalid (422, e.g. a bad spec.template field) or forbidden (403,
// e.g. by Pod Security admission or a ResourceQuota) is also recorded as a Warning event
// FailedCreate on the job, with the server's message. A failed write returns Unavailable, a stale
// PodGroup (409) FailedPrecondition, so that the key is retried with backoff. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/jobs/secret_ownership.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/rest_client.h"

namespace petname::controller {

class JobWriter {
 public:
  JobWriter(kube::RestClient* client, kube::EventRecorder* events);

  // `pods_exist`: the cache holds a pod this job controls (its rendezvous Secret is then the one
  // the operator created before that pod).
  Status CreateAll(const api::Job& job, const std::vector<nlohmann::json>& objects,
                   bool pods_exist);
  Status DeletePod(const api::Job& job, const std::string& name);
  // PUT of the job's PodGroup with a new minMember (Diff's update).
  Status UpdatePodGroup(const api::Job& job, const nlohmann::json& group);
  // Deletes the job (propagationPolicy Background): its TTL after finishing expired.
  Status DeleteJob(const api::Job& job);
  // The job `key` is gone: forget what was remembered of it.
  void Forget(const std::string& key) { secrets_.Forget(key); }

  int64_t creates() const { return creates_.load(); }

 private:
  Status Create(const api::Job& job, const nlohmann::json& obj, bool pods_exist);

  kube::RestClient* const client_;
  kube::EventRecorder* const events_;
  SecretOwnership secrets_;
  std::atomic<int64_t> creates_{0};
};

}  // namespace petname::controller
