// OperatorMetrics: everything petname-operator exports on /metrics, in a prometheus-cpp
// registry serialised by prometheus-cpp's text serializer.
//
// Events are counted as they happen (Observe*); values that other components own (the work
// queue's stats, informer lists, jobs per phase, leadership) are read from Sources at scrape
// time, so they are never stale. Process metrics come from common/metrics' ProcessCollector.
// The reconcile, queue and request observations are exported twice: as the petname_operator_*
// metrics below and under controller-runtime's names (runtime_metrics.h, controller
// kControllerName). Thread-safe.
//
//   petname_operator_jobs_{created,succeeded,failed,restarted}_total{namespace}  counters
//   petname_operator_jobs{phase}                          gauge (from the job cache)
//   petname_operator_reconcile_total, _reconcile_errors_total, _reconcile_duration_seconds
//   petname_operator_workqueue_{depth,adds_total,queue_duration_seconds} (depth counts the
//   delayed keys too)
//   petname_operator_api_requests_total{verb,code}, _api_request_duration_seconds{verb}
//   petname_operator_informer_lists_total, petname_operator_is_leader, process_*
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "operator/api/job_status.h"
#include "operator/kube/work_queue.h"
#include "operator/metrics/runtime_metrics.h"

namespace petname::operator_metrics {

// The controller's name in the controller-runtime metrics (its kind in lower case).
inline constexpr char kControllerName[] = "petnametrainingjob";

struct Sources {
  std::function<kube::QueueStats()> queue;
  std::function<int64_t()> informer_lists;
  std::function<std::map<std::string, int64_t>()> jobs_by_phase;
  std::function<bool()> is_leader;
};

class OperatorMetrics {
 public:
  OperatorMetrics();

  // Set once, before the first scrape; a missing function leaves its metric out.
  void SetSources(Sources sources);

  // After a successful status write of a job in `ns`: counts its transitions.
  void ObserveStatusWrite(const std::string& ns, const api::JobStatus& old_status,
                          const api::JobStatus& new_status);
  void ObserveReconcile(double seconds, ReconcileResult result);
  // Time a key waited in the work queue before a worker took it.
  void ObserveQueueWait(double seconds);
  // Time from a worker taking a key to its Done().
  void ObserveWork(double seconds);
  // One API request attempt to `host` (HOST:PORT): code 0 means no answer (connection error).
  void ObserveApiRequest(const std::string& verb, const std::string& host, int code,
                         double seconds);
  // A retry of an API request after an answer with `code` (0: no answer).
  void ObserveApiRetry(const std::string& verb, const std::string& host, int code);

  // The exposition text (Prometheus text format 0.0.4).
  std::string Text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  RuntimeMetrics runtime_;
  std::shared_ptr<prometheus::Collectable> sources_collector_;
  std::shared_ptr<prometheus::Collectable> process_collector_;
  prometheus::Family<prometheus::Counter>& created_;
  prometheus::Family<prometheus::Counter>& succeeded_;
  prometheus::Family<prometheus::Counter>& failed_;
  prometheus::Family<prometheus::Counter>& restarted_;
  prometheus::Counter& reconciles_;
  prometheus::Counter& reconcile_errors_;
  prometheus::Histogram& reconcile_duration_;
  prometheus::Histogram& queue_wait_;
  prometheus::Family<prometheus::Counter>& api_requests_;
  prometheus::Family<prometheus::Histogram>& api_latency_;
};

}  // namespace petname::operator_metrics
