// Controller: wires the informers (PetNameTrainingJobs; pods and services labelled
// app.kubernetes.io/name=petname with a petname.dev/job-name) to a de-duplicating rate-limited
// work queue and N reconcile workers, controller-runtime style. Any change to a job, or to a pod
// or service carrying a job's name label, queues that job's key. Workers start once every cache
// has synced; a failed reconcile is re-queued with per-key backoff, a successful one that asks
// for a later pass (restart backoff, deadlines, TTL) is re-queued after that delay. Events on
// the jobs go through an EventRecorder, which never blocks a reconcile.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "operator/controller/reconciler.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/work_queue.h"

namespace petname::controller {

struct ControllerOptions {
  std::string ns;  // "" = all namespaces
  int workers = 4;
};

class Controller {
 public:
  Controller(kube::RestClient* client, ControllerOptions options);
  ~Controller();

  // Starts the informer and worker threads; returns at once.
  void Start();
  // Stops the workers and informers and joins their threads. The client must be shut down
  // first (or concurrently) so that open watches end.
  void Stop();

  // True once every informer has synced.
  bool Synced() const;
  int64_t reconciles() const { return reconciles_.load(); }
  int64_t reconcile_errors() const { return reconcile_errors_.load(); }
  size_t queue_depth() { return queue_.Len(); }
  // Full lists done by the informers: one each at start, one more per 410 relist.
  int64_t lists() const;

 private:
  void Enqueue(const nlohmann::json& obj, bool is_job);
  void Work();

  kube::RestClient* const client_;
  const ControllerOptions options_;
  kube::WorkQueue queue_;
  std::unique_ptr<kube::Informer> jobs_;
  std::unique_ptr<kube::Informer> pods_;
  std::unique_ptr<kube::Informer> services_;
  kube::EventRecorder events_;
  std::unique_ptr<Reconciler> reconciler_;
  std::vector<std::thread> threads_;
  std::atomic<int64_t> reconciles_{0};
  std::atomic<int64_t> reconcile_errors_{0};
};

}  // namespace petname::controller
