// SweepController: the PetNameTrainingSweep controller, beside the job Controller and sharing
// its client. Two informers (sweeps; PetNameTrainingJobs labelled petname.dev/sweep-name, the
// trials) feed a de-duplicating rate-limited work queue of sweep keys: a change to a sweep, or
// to a trial job (mapped to its sweep by the label), queues the sweep. One worker runs
// SweepReconciler passes once both caches have synced; a failed pass is re-queued with per-key
// backoff. Trial jobs themselves are reconciled by the job Controller like any other job. The
// caches hold what jobs/cache_shape.h keeps: sweeps without their annotations, and only the trial
// jobs a sweep controls, with what the sweep reads of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/work_queue.h"
#include "operator/sweeps/sweep_reconciler.h"

namespace petname::controller {

class SweepController {
 public:
  // `ns`: the namespace watched ("" = all); `max_pods`: --max-pods-per-sweep (SweepReconciler).
  SweepController(kube::RestClient* client, const std::string& ns, int64_t max_pods);
  ~SweepController();

  // Starts the informers; returns at once.
  void Start();
  // Starts the worker (with leader election: once this replica leads).
  void StartWorkers();
  // Stops the worker and informers and joins their threads (the client shut down first).
  void Stop();

  bool Synced() const;

 private:
  void Work();

  kube::RestClient* const client_;
  kube::WorkQueue queue_;
  std::unique_ptr<kube::Informer> sweeps_;
  std::unique_ptr<kube::Informer> jobs_;
  kube::EventRecorder events_;
  std::unique_ptr<SweepReconciler> reconciler_;
  std::vector<std::thread> threads_;
};

}  // namespace petname::controller
