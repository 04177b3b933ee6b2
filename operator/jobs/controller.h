// Controller: wires the informers (PetNameTrainingJobs; pods and services labelled
// app.kubernetes.io/name=petname with a petname.dev/job-name) to a de-duplicating rate-limited
// work queue and N reconcile workers, controller-runtime style. Any change to a job, or to a pod
// or service carrying a job's name label, queues that job's key. Workers start once every cache
// has synced; a failed reconcile is re-queued with per-key backoff, a successful one that asks
// for a later pass (restart backoff, deadlines, TTL) is re-queued after that delay. Events on
// the jobs go through an EventRecorder, which never blocks a reconcile. The caches keep only the
// objects the operator made and the fields it reads (cache_shape.h).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "operator/jobs/reconciler.h"
#include "operator/kube/event_recorder.h"
#include "operator/kube/informer.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/work_queue.h"
#include "operator/kueue/kueue_config.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/progress/progress_scraper.h"

namespace petname::controller {

struct ControllerOptions {
  std::string ns;  // "" = all namespaces
  int workers = 4;
  // Optional: where reconciles, queue waits and status transitions are counted.
  operator_metrics::OperatorMetrics* metrics = nullptr;
  // Optional: scraped training progress the reconcile writes into status.progress.
  progress::ProgressStore* progress = nullptr;
  // --kueue: jobs in a Kueue queue wait for admission (kueue/queue_admission.h); their Workloads
  // are watched (labelled like the pods) when kueue.x-k8s.io/v1beta2 is served at start.
  bool kueue = false;
  // --kueue-config: what the operator takes from Kueue's Configuration (Kueue's defaults without).
  KueueConfig kueue_config = DefaultKueueConfig();
  // --network-policy: a NetworkPolicy per job (network_policy.h); its objects are watched
  // (labelled like the pods) only then.
  NetworkPolicyOptions network_policy;
};

class Controller {
 public:
  Controller(kube::RestClient* client, ControllerOptions options);
  ~Controller();

  // Starts the informers (caches fill and keys queue up); returns at once.
  void Start();
  // Starts the reconcile workers (with leader election: once this replica leads).
  void StartWorkers();
  // Stops the workers and informers and joins their threads. The client must be shut down
  // first (or concurrently) so that open watches end.
  void Stop();

  // True once every informer has synced.
  bool Synced() const;
  kube::QueueStats queue_stats() { return queue_.Stats(); }
  // Full lists done by the informers: one each at start, one more per 410 relist.
  int64_t lists() const;
  // Cached jobs by status.phase ("" before the first status write).
  std::map<std::string, int64_t> JobsByPhase() const;
  std::set<std::string> JobKeys() const;
  // The /metrics of rank 0 of every Running job whose rank-0 pod runs and has an IP.
  std::vector<progress::Target> ProgressTargets() const;
  void Enqueue(const std::string& key) { queue_.Add(key); }

 private:
  void Enqueue(const nlohmann::json& obj, bool is_job);
  void Work();
  // The informers that exist (the workloads' only with Kueue).
  std::vector<kube::Informer*> Informers() const;
  // With --kueue: the workloads informer, when Kueue's API is served.
  void WatchWorkloads(const std::string& selector);

  kube::RestClient* const client_;
  const ControllerOptions options_;
  kube::WorkQueue queue_;
  std::unique_ptr<kube::Informer> jobs_;
  std::unique_ptr<kube::Informer> pods_;
  std::unique_ptr<kube::Informer> services_;
  std::unique_ptr<kube::Informer> workloads_;         // null without --kueue or Kueue's API
  std::unique_ptr<kube::Informer> network_policies_;  // null without --network-policy
  kube::EventRecorder events_;
  std::unique_ptr<Reconciler> reconciler_;
  std::vector<std::thread> threads_;
};

}  // namespace petname::controller
