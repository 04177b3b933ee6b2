#include "operator/metrics/runtime_metrics.h"

#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

namespace petname::operator_metrics {
namespace {

constexpr char kCtl[] = R"(controller="pntj")";
constexpr char kQueue[] = R"({controller="pntj",name="pntj"})";

// The value of one sample line (exact name and labels as serialised), or -1.
double Value(const std::string& text, const std::string& series) {
  size_t pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 2));
}

std::string Text(prometheus::Registry& registry, const RuntimeMetrics& m,
                 const kube::QueueStats& stats) {
  std::vector<prometheus::MetricFamily> families = registry.Collect();
  for (auto& f : m.QueueFamilies(stats)) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

TEST(RuntimeMetricsTest, ReconcilesByResultFromZero) {
  prometheus::Registry registry;
  RuntimeMetrics m(registry, "pntj");
  std::string text = Text(registry, m, {});
  for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
    EXPECT_EQ(Value(text, std::string("controller_runtime_reconcile_total{") + kCtl + ",result=\"" +
                              result + "\"}"),
              0)
        << result;
  }
  m.ObserveReconcile(0.01, ReconcileResult::kSuccess);
  m.ObserveReconcile(0.02, ReconcileResult::kSuccess);
  m.ObserveReconcile(0.3, ReconcileResult::kError);
  m.ObserveReconcile(0.04, ReconcileResult::kRequeueAfter);
  text = Text(registry, m, {});
  const std::string total = std::string("controller_runtime_reconcile_total{") + kCtl;
  EXPECT_EQ(Value(text, total + ",result=\"success\"}"), 2);
  EXPECT_EQ(Value(text, total + ",result=\"error\"}"), 1);
  EXPECT_EQ(Value(text, total + ",result=\"requeue_after\"}"), 1);
  EXPECT_EQ(Value(text, total + ",result=\"requeue\"}"), 0);
  EXPECT_EQ(Value(text, std::string("controller_runtime_reconcile_errors_total{") + kCtl + "}"), 1);
  const std::string time = std::string("controller_runtime_reconcile_time_seconds");
  EXPECT_EQ(Value(text, time + "_count{" + kCtl + "}"), 4);
  EXPECT_NEAR(Value(text, time + "_sum{" + kCtl + "}"), 0.37, 1e-9);
  EXPECT_EQ(Value(text, time + "_bucket{" + kCtl + ",le=\"0.025\"}"), 2);
  EXPECT_EQ(Value(text, time + "_bucket{" + kCtl + ",le=\"0.05\"}"), 3);
  EXPECT_EQ(Value(text, time + "_bucket{" + kCtl + ",le=\"60\"}"), 4);
}

TEST(RuntimeMetricsTest, WorkQueueHistogramsAndScrapeTimeStats) {
  prometheus::Registry registry;
  RuntimeMetrics m(registry, "pntj");
  m.ObserveQueueWait(0.002);
  m.ObserveQueueWait(5);
  m.ObserveWork(0.05);
  kube::QueueStats stats;
  stats.depth = 2;
  stats.delayed = 5;
  stats.adds = 9;
  stats.retries = 3;
  stats.unfinished_work_seconds = 1.5;
  stats.longest_running_seconds = 1.25;
  const std::string text = Text(registry, m, stats);
  const std::string q = kQueue;
  EXPECT_EQ(Value(text, "workqueue_queue_duration_seconds_count" + q), 2);
  EXPECT_EQ(Value(text, "workqueue_work_duration_seconds_count" + q), 1);
  EXPECT_EQ(Value(text, "workqueue_depth" + q), 2);  // ready keys only, as in client-go
  EXPECT_EQ(Value(text, "workqueue_adds_total" + q), 9);
  EXPECT_EQ(Value(text, "workqueue_retries_total" + q), 3);
  EXPECT_EQ(Value(text, "workqueue_unfinished_work_seconds" + q), 1.5);
  EXPECT_EQ(Value(text, "workqueue_longest_running_processor_seconds" + q), 1.25);
  EXPECT_NE(text.find("# TYPE workqueue_adds_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE workqueue_depth gauge"), std::string::npos);
}

TEST(RuntimeMetricsTest, RestClientRequestsByCodeMethodAndHost) {
  prometheus::Registry registry;
  RuntimeMetrics m(registry, "pntj");
  m.ObserveRequest("POST", "10.0.0.1:6443", 201);
  m.ObserveRequest("POST", "10.0.0.1:6443", 201);
  m.ObserveRequest("WATCH", "10.0.0.1:6443", 200);
  m.ObserveRequest("GET", "10.0.0.1:6443", 0);
  const std::string text = Text(registry, m, {});
  const std::string host = R"(host="10.0.0.1:6443")";
  EXPECT_EQ(Value(text, "rest_client_requests_total{code=\"201\"," + host + ",method=\"POST\"}"),
            2);
  EXPECT_EQ(Value(text, "rest_client_requests_total{code=\"200\"," + host + ",method=\"GET\"}"), 1);
  EXPECT_EQ(Value(text, "rest_client_requests_total{code=\"<error>\"," + host + ",method=\"GET\"}"),
            1);
  EXPECT_EQ(text.find("WATCH"), std::string::npos);
}

TEST(RuntimeMetricsTest, RestClientRetriesByCodeVerbAndHost) {
  prometheus::Registry registry;
  RuntimeMetrics m(registry, "pntj");
  m.ObserveRetry("POST", "10.0.0.1:6443", 429);
  m.ObserveRetry("POST", "10.0.0.1:6443", 429);
  m.ObserveRetry("PUT", "10.0.0.1:6443", 0);
  const std::string text = Text(registry, m, {});
  const std::string host = R"(host="10.0.0.1:6443")";
  EXPECT_EQ(
      Value(text, "rest_client_request_retries_total{code=\"429\"," + host + ",verb=\"POST\"}"), 2);
  EXPECT_EQ(
      Value(text, "rest_client_request_retries_total{code=\"<error>\"," + host + ",verb=\"PUT\"}"),
      1);
}

}  // namespace
}  // namespace petname::operator_metrics
