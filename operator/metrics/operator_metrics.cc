#include "operator/metrics/operator_metrics.h"

#include <mutex>
#include <utility>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/text_serializer.h>

#include "common/metrics/process_collector.h"
#include "operator/metrics/job_transitions.h"

namespace petname::operator_metrics {
namespace {

using prometheus::MetricType;

// Exponential buckets from 1 ms to ~33 s (controller-runtime uses a similar range).
const prometheus::Histogram::BucketBoundaries kLatencyBuckets = {
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064,  0.128,
    0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384, 32.768};

prometheus::Family<prometheus::Counter>& CounterFamily(prometheus::Registry& r,
                                                       const std::string& name,
                                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}

prometheus::Histogram& LatencyHistogram(prometheus::Registry& r, const std::string& name,
                                        const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r).Add({}, kLatencyBuckets);
}

// Reads the Sources at scrape time.
class SourcesCollector : public prometheus::Collectable {
 public:
  explicit SourcesCollector(const RuntimeMetrics* runtime) : runtime_(runtime) {}

  void Set(Sources sources) {
    std::lock_guard<std::mutex> lock(mu_);
    sources_ = std::move(sources);
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<prometheus::MetricFamily> out;
    auto single = [&out](const char* name, const char* help, MetricType type, double value) {
      out.push_back({name, help, type, {metrics::Sample(type, {}, value)}});
    };
    if (sources_.queue) {
      const kube::QueueStats stats = sources_.queue();
      single("petname_operator_workqueue_depth",
             "Keys waiting in the work queue (ready or delayed).", MetricType::Gauge,
             static_cast<double>(stats.depth + stats.delayed));
      single("petname_operator_workqueue_adds_total", "Keys added to the work queue.",
             MetricType::Counter, static_cast<double>(stats.adds));
      for (auto& f : runtime_->QueueFamilies(stats)) out.push_back(std::move(f));
    }
    if (sources_.informer_lists) {
      single("petname_operator_informer_lists_total",
             "Full lists by the informers: one each at start, one per 410 relist.",
             MetricType::Counter, static_cast<double>(sources_.informer_lists()));
    }
    if (sources_.is_leader) {
      single("petname_operator_is_leader",
             "1 while this replica holds the leader lease (always 1 without leader election).",
             MetricType::Gauge, sources_.is_leader() ? 1 : 0);
    }
    if (sources_.jobs_by_phase) {
      prometheus::MetricFamily jobs{"petname_operator_jobs",
                                    "PetNameTrainingJobs in the operator's cache, by phase.",
                                    MetricType::Gauge,
                                    {}};
      for (const auto& [phase, n] : sources_.jobs_by_phase()) {
        jobs.metric.push_back(
            metrics::Sample(MetricType::Gauge, {{"phase", phase}}, static_cast<double>(n)));
      }
      out.push_back(std::move(jobs));
    }
    return out;
  }

 private:
  const RuntimeMetrics* const runtime_;
  mutable std::mutex mu_;
  Sources sources_;
};

}  // namespace

OperatorMetrics::OperatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      runtime_(*registry_, kControllerName),
      sources_collector_(std::make_shared<SourcesCollector>(&runtime_)),
      process_collector_(std::make_shared<metrics::ProcessCollector>(prometheus::Labels{})),
      created_(CounterFamily(*registry_, "petname_operator_jobs_created_total",
                             "Jobs whose first status the operator wrote.")),
      succeeded_(CounterFamily(*registry_, "petname_operator_jobs_succeeded_total",
                               "Jobs that reached phase Succeeded.")),
      failed_(CounterFamily(*registry_, "petname_operator_jobs_failed_total",
                            "Jobs that reached phase Failed.")),
      restarted_(CounterFamily(*registry_, "petname_operator_jobs_restarted_total",
                               "Gang restarts of jobs (increases of status.restarts).")),
      reconciles_(
          CounterFamily(*registry_, "petname_operator_reconcile_total", "Reconciles run.").Add({})),
      reconcile_errors_(CounterFamily(*registry_, "petname_operator_reconcile_errors_total",
                                      "Reconciles that failed and were retried.")
                            .Add({})),
      reconcile_duration_(LatencyHistogram(*registry_,
                                           "petname_operator_reconcile_duration_seconds",
                                           "Wall time of one reconcile.")),
      queue_wait_(LatencyHistogram(*registry_, "petname_operator_workqueue_queue_duration_seconds",
                                   "Time a key waited in the work queue before a worker took it.")),
      api_requests_(CounterFamily(*registry_, "petname_operator_api_requests_total",
                                  "Kubernetes API request attempts by verb and HTTP code "
                                  "(code \"<error>\": no answer).")),
      api_latency_(prometheus::BuildHistogram()
                       .Name("petname_operator_api_request_duration_seconds")
                       .Help("Latency of Kubernetes API request attempts (watches: until the "
                             "response headers).")
                       .Register(*registry_)) {}

void OperatorMetrics::SetSources(Sources sources) {
  static_cast<SourcesCollector&>(*sources_collector_).Set(std::move(sources));
}

void OperatorMetrics::ObserveStatusWrite(const std::string& ns, const api::JobStatus& old_status,
                                         const api::JobStatus& new_status) {
  JobTransitions t = CountTransitions(old_status, new_status);
  const prometheus::Labels labels{{"namespace", ns}};
  if (t.created) created_.Add(labels).Increment();
  if (t.succeeded) succeeded_.Add(labels).Increment();
  if (t.failed) failed_.Add(labels).Increment();
  if (t.restarts > 0) restarted_.Add(labels).Increment(static_cast<double>(t.restarts));
}

void OperatorMetrics::ObserveReconcile(double seconds, ReconcileResult result) {
  reconciles_.Increment();
  if (result == ReconcileResult::kError) reconcile_errors_.Increment();
  reconcile_duration_.Observe(seconds);
  runtime_.ObserveReconcile(seconds, result);
}

void OperatorMetrics::ObserveQueueWait(double seconds) {
  queue_wait_.Observe(seconds);
  runtime_.ObserveQueueWait(seconds);
}

void OperatorMetrics::ObserveWork(double seconds) { runtime_.ObserveWork(seconds); }

void OperatorMetrics::ObserveApiRequest(const std::string& verb, const std::string& host, int code,
                                        double seconds) {
  api_requests_.Add({{"verb", verb}, {"code", code == 0 ? "<error>" : std::to_string(code)}})
      .Increment();
  api_latency_.Add({{"verb", verb}}, kLatencyBuckets).Observe(seconds);
  runtime_.ObserveRequest(verb, host, code);
}

void OperatorMetrics::ObserveApiRetry(const std::string& verb, const std::string& host, int code) {
  runtime_.ObserveRetry(verb, host, code);
}

std::string OperatorMetrics::Text() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (const auto& c : {sources_collector_, process_collector_}) {
    for (auto& f : c->Collect()) families.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace petname::operator_metrics
