// RuntimeMetrics: the operator's reconciles, work queue and API requests under the names and
// labels controller-runtime and client-go export, so that stock controller dashboards and alerts
// work on petname-operator unchanged. They live in the operator's registry beside its own
// petname_operator_* metrics (operator_metrics.h), which count the same events.
//
//   controller_runtime_reconcile_total{controller,result}  result success, error, requeue or
//                                                          requeue_after (all exported from 0)
//   controller_runtime_reconcile_errors_total{controller}
//   controller_runtime_reconcile_time_seconds{controller}  histogram
//   workqueue_queue_duration_seconds{name,controller}      histogram: added -> handed out
//   workqueue_work_duration_seconds{name,controller}       histogram: handed out -> done
//   rest_client_requests_total{code,method,host}           code "<error>": no answer
//   rest_client_request_retries_total{code,verb,host}      retries, by the code that caused
//                                                          them (client-go since 1.24)
// and from a kube::QueueStats at scrape time (QueueFamilies):
//   workqueue_depth, workqueue_adds_total, workqueue_retries_total,
//   workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds
//   {name,controller}
// `name` and `controller` both carry the controller's name, as in controller-runtime.
// Thread-safe.
#pragma once

#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include "operator/kube/work_queue.h"

namespace petname::operator_metrics {

// How a reconcile ended, in controller-runtime's terms (the operator never asks for an
// immediate requeue, so "requeue" stays 0).
enum class ReconcileResult { kSuccess, kError, kRequeueAfter };

class RuntimeMetrics {
 public:
  // Registers the families in `registry`; `controller` names the controller and its queue.
  RuntimeMetrics(prometheus::Registry& registry, std::string controller);

  void ObserveReconcile(double seconds, ReconcileResult result);
  void ObserveQueueWait(double seconds);
  void ObserveWork(double seconds);
  // One request attempt to `host` (HOST:PORT): `verb` WATCH counts as method GET, as client-go
  // counts watches; code 0 means no answer.
  void ObserveRequest(const std::string& verb, const std::string& host, int code);
  // A retry of a request to `host` after an answer with `code` (0: no answer).
  void ObserveRetry(const std::string& verb, const std::string& host, int code);

  std::vector<prometheus::MetricFamily> QueueFamilies(const kube::QueueStats& stats) const;

 private:
  const std::string controller_;
  prometheus::Family<prometheus::Counter>& reconciles_;
  prometheus::Counter& reconcile_errors_;
  prometheus::Histogram& reconcile_time_;
  prometheus::Histogram& queue_duration_;
  prometheus::Histogram& work_duration_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Counter>& retries_;
};

}  // namespace petname::operator_metrics
