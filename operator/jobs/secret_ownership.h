// SecretOwnership: whose a job's rendezvous Secret (rendezvous_secret.h) is when its create
// answers 409, and what the operator does about it. The operator reads no Secret's data.
//
// The Secret is created before the job's pods. When it exists already it is the job's own if this
// process created it for the job (remembered until the job is gone: the pod cache may not show
// the pods just created yet; a 409 after a retried create counts as this process's own create,
// whose answer was lost) or a pod of the job exists (pods are created only after it; after an
// operator restart the caches have synced). Otherwise its metadata alone is read
// (RestClient::GetMetadata): one this job controls may have been made by anyone who could point
// an owner reference at the job, and knows its value, so it is deleted (on the condition that it
// is still the Secret read) and created afresh on the next pass (a Normal event
// RendezvousSecretReplaced says so); one the job does not control is someone else's and is left
// alone: a Warning event RendezvousSecretConflict names it, and no rank pod is created (the key
// is retried with backoff) until it is gone. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/rest_client.h"

namespace petname::controller {

class SecretOwnership {
 public:
  SecretOwnership(kube::RestClient* client, kube::EventRecorder* events);

  // This process created the rendezvous Secret of `job`.
  void Remember(const api::Job& job);
  // The job `key` ("namespace/name") is gone.
  void Forget(const std::string& key);

  // The create of the job's Secret `name` in the collection `path` answered 409 (`resp`); OK
  // when it is the job's own (`pods_exist`: the cache holds a pod the job controls), else
  // FailedPrecondition once it is deleted or found to be someone else's (see above).
  Status OnConflict(const api::Job& job, const std::string& path, const std::string& name,
                    const kube::Response& resp, bool pods_exist);

 private:
  bool Created(const api::Job& job);
  // Deletes the Secret when the job controls it, so that the next pass creates a fresh one, else
  // reports the conflict; returns FailedPrecondition.
  Status Replace(const api::Job& job, const std::string& path, const std::string& name);

  kube::RestClient* const client_;
  kube::EventRecorder* const events_;
  // Job key -> uid of each job whose rendezvous Secret this process created.
  std::mutex mu_;
  std::map<std::string, std::string> created_;
};

}  // namespace petname::controller
