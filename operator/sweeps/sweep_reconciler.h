// SweepReconciler: one level-triggered pass for one PetNameTrainingSweep key ("ns/name").
//
// It reads the sweep and its trial jobs (labelled petname.dev/sweep-name) from the informer
// caches, computes DesiredSweep (pure, sweep_desired.h), creates the trial jobs it asks for (a
// 409 AlreadyExists is fine: names are deterministic), suspends the trials it stops (a merge
// patch of spec.runPolicy.suspend) and writes the new status through the status subresource
// with the sweep's resourceVersion when it changed. A sweep the operator cannot parse (stored
// before a CRD rule existed) gets phase Failed with the reason (condition Failed, reason
// InvalidSpec), and so does one whose trials could run more pods at once than max_pods (reason
// TooManyPods: CheckSweepPods; no trial is created, trials created before are left alone), and
// one too large to cache (reason TooLarge: jobs/cache_shape.h);
// retrying cannot help, so the key is not retried. A failed create or patch returns Unavailable and
// a stale status write (409) FailedPrecondition: the key is retried, from fresh cache state, with
// backoff. A create the API server refuses (422, 403) is also recorded as a Warning event
// FailedCreate on the sweep.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/sweep.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"

namespace petname::controller {

struct SweepCaches {
  const kube::Informer* sweeps;
  const kube::Informer* jobs;  // trial jobs (petname.dev/sweep-name set)
};

class SweepReconciler {
 public:
  // `max_pods`: CheckSweepPods's bound (--max-pods-per-sweep).
  SweepReconciler(kube::RestClient* client, SweepCaches caches, kube::EventRecorder* events,
                  int64_t max_pods);

  Status Reconcile(const std::string& key);

 private:
  Status Create(const api::Sweep& sweep, const nlohmann::json& job);
  Status Suspend(const api::Sweep& sweep, const std::string& job_name);
  // Phase Failed with condition Failed (reason, message); the key is not retried.
  Status Refuse(const nlohmann::json& object, const std::string& reason,
                const std::string& message);
  Status WriteStatus(const nlohmann::json& object, const nlohmann::json& status);

  kube::RestClient* const client_;
  const SweepCaches caches_;
  kube::EventRecorder* const events_;
  const int64_t max_pods_;
};

// The PetNameTrainingSweep collection in `ns` ("" = all namespaces).
std::string SweepsPath(const std::string& ns);

}  // namespace petname::controller
