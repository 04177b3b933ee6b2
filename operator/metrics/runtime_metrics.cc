#include "operator/metrics/runtime_metrics.h"

#include <utility>

#include "common/metrics/process_collector.h"

namespace petname::operator_metrics {
namespace {

using prometheus::MetricType;

// controller-runtime's reconcile_time_seconds buckets.
const prometheus::Histogram::BucketBoundaries kReconcileBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
    0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
    6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};

// client-go's workqueue buckets: 10 ns to 1000 s, a factor of 10 apart.
const prometheus::Histogram::BucketBoundaries kQueueBuckets = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3,
                                                               1e-2, 1e-1, 1,    10,   100,  1000};

const char* ResultLabel(ReconcileResult r) {
  switch (r) {
    case ReconcileResult::kSuccess:
      return "success";
    case ReconcileResult::kError:
      return "error";
    case ReconcileResult::kRequeueAfter:
      return "requeue_after";
  }
  return "success";
}

// client-go's code label: the HTTP code, or "<error>" when there was no answer.
std::string CodeLabel(int code) { return code == 0 ? "<error>" : std::to_string(code); }

prometheus::Histogram& QueueHistogram(prometheus::Registry& r, const std::string& controller,
                                      const std::string& name, const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r).Add(
      {{"name", controller}, {"controller", controller}}, kQueueBuckets);
}

}  // namespace

RuntimeMetrics::RuntimeMetrics(prometheus::Registry& registry, std::string controller)
    : controller_(std::move(controller)),
      reconciles_(prometheus::BuildCounter()
                      .Name("controller_runtime_reconcile_total")
                      .Help("Reconciles run, by controller and how they ended.")
                      .Register(registry)),
      reconcile_errors_(prometheus::BuildCounter()
                            .Name("controller_runtime_reconcile_errors_total")
                            .Help("Reconciles that failed and were re-queued with backoff.")
                            .Register(registry)
                            .Add({{"controller", controller_}})),
      reconcile_time_(prometheus::BuildHistogram()
                          .Name("controller_runtime_reconcile_time_seconds")
                          .Help("Wall time of one reconcile.")
                          .Register(registry)
                          .Add({{"controller", controller_}}, kReconcileBuckets)),
      queue_duration_(
          QueueHistogram(registry, controller_, "workqueue_queue_duration_seconds",
                         "Seconds a key waited in the work queue before a worker took it.")),
      work_duration_(QueueHistogram(registry, controller_, "workqueue_work_duration_seconds",
                                    "Seconds from a worker taking a key to finishing it.")),
      requests_(prometheus::BuildCounter()
                    .Name("rest_client_requests_total")
                    .Help("Kubernetes API request attempts by HTTP code, method and API server.")
                    .Register(registry)),
      retries_(prometheus::BuildCounter()
                   .Name("rest_client_request_retries_total")
                   .Help("Kubernetes API request retries by the HTTP code that caused them, verb "
                         "and API server.")
                   .Register(registry)) {
  for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
    reconciles_.Add({{"controller", controller_}, {"result", result}});
  }
}

void RuntimeMetrics::ObserveReconcile(double seconds, ReconcileResult result) {
  reconciles_.Add({{"controller", controller_}, {"result", ResultLabel(result)}}).Increment();
  if (result == ReconcileResult::kError) reconcile_errors_.Increment();
  reconcile_time_.Observe(seconds);
}

void RuntimeMetrics::ObserveQueueWait(double seconds) { queue_duration_.Observe(seconds); }

void RuntimeMetrics::ObserveWork(double seconds) { work_duration_.Observe(seconds); }

void RuntimeMetrics::ObserveRequest(const std::string& verb, const std::string& host, int code) {
  requests_
      .Add({{"code", CodeLabel(code)}, {"method", verb == "WATCH" ? "GET" : verb}, {"host", host}})
      .Increment();
}

void RuntimeMetrics::ObserveRetry(const std::string& verb, const std::string& host, int code) {
  retries_.Add({{"code", CodeLabel(code)}, {"verb", verb}, {"host", host}}).Increment();
}

std::vector<prometheus::MetricFamily> RuntimeMetrics::QueueFamilies(
    const kube::QueueStats& stats) const {
  const prometheus::Labels labels{{"name", controller_}, {"controller", controller_}};
  auto family = [&labels](const char* name, const char* help, MetricType type, double value) {
    return prometheus::MetricFamily{name, help, type, {metrics::Sample(type, labels, value)}};
  };
  return {
      family("workqueue_depth", "Keys ready in the work queue (not counting delayed ones).",
             MetricType::Gauge, static_cast<double>(stats.depth)),
      family("workqueue_adds_total", "Keys newly added to the work queue.", MetricType::Counter,
             static_cast<double>(stats.adds)),
      family("workqueue_retries_total", "Keys re-added with backoff after a failed reconcile.",
             MetricType::Counter, static_cast<double>(stats.retries)),
      family("workqueue_unfinished_work_seconds",
             "Seconds the keys being processed have been processed so far, summed (a steady "
             "rise means stuck workers).",
             MetricType::Gauge, stats.unfinished_work_seconds),
      family("workqueue_longest_running_processor_seconds",
             "Seconds the longest-running key being processed has been processed so far.",
             MetricType::Gauge, stats.longest_running_seconds),
  };
}

}  // namespace petname::operator_metrics
