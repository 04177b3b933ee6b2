#include "operator/metrics/operator_metrics.h"

#include <gtest/gtest.h>

namespace petname::operator_metrics {
namespace {

using Json = nlohmann::json;

// The value of one sample line (exact name and labels as serialised), or -1.
double Value(const std::string& text, const std::string& series) {
  size_t pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 2));
}

// A status from its JSON form (the API edge).
api::JobStatus S(const Json& status) { return api::JobStatusFromJson(status); }

TEST(OperatorMetricsTest, CountsTransitionsPerNamespace) {
  OperatorMetrics m;
  m.ObserveStatusWrite("a", S(Json::object()), S({{"phase", "Pending"}}));
  m.ObserveStatusWrite("a", S({{"phase", "Pending"}}), S({{"phase", "Running"}}));
  m.ObserveStatusWrite("a", S({{"phase", "Running"}}), S({{"phase", "Succeeded"}}));
  m.ObserveStatusWrite("a", S({{"phase", "Succeeded"}}), S({{"phase", "Succeeded"}}));
  m.ObserveStatusWrite("b", S({{"phase", "Running"}, {"restarts", 0}}),
                       S({{"phase", "Running"}, {"restarts", 2}}));
  m.ObserveStatusWrite("b", S({{"phase", "Running"}}), S({{"phase", "Failed"}}));
  std::string text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_jobs_created_total{namespace=\"a\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_jobs_succeeded_total{namespace=\"a\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_jobs_restarted_total{namespace=\"b\"}"), 2);
  EXPECT_EQ(Value(text, "petname_operator_jobs_failed_total{namespace=\"b\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_jobs_failed_total{namespace=\"a\"}"), -1);
}

TEST(OperatorMetricsTest, ReconcilesQueueAndApiRequests) {
  OperatorMetrics m;
  m.ObserveReconcile(0.01, ReconcileResult::kSuccess);
  m.ObserveReconcile(0.02, ReconcileResult::kError);
  m.ObserveQueueWait(0.5);
  m.ObserveApiRequest("GET", "api:6443", 200, 0.003);
  m.ObserveApiRequest("GET", "api:6443", 200, 0.004);
  m.ObserveApiRequest("POST", "api:6443", 0, 1.0);
  const std::string text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_reconcile_total"), 2);
  EXPECT_EQ(Value(text, "petname_operator_reconcile_errors_total"), 1);
  EXPECT_EQ(Value(text, "petname_operator_reconcile_duration_seconds_count"), 2);
  EXPECT_EQ(Value(text, "petname_operator_workqueue_queue_duration_seconds_count"), 1);
  EXPECT_EQ(Value(text, "petname_operator_api_requests_total{code=\"200\",verb=\"GET\"}"), 2);
  EXPECT_EQ(Value(text, "petname_operator_api_requests_total{code=\"<error>\",verb=\"POST\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_api_request_duration_seconds_count{verb=\"GET\"}"), 2);
  EXPECT_NE(text.find("process_resident_memory_bytes"), std::string::npos);
}

TEST(OperatorMetricsTest, AlsoUnderControllerRuntimeNames) {
  OperatorMetrics m;
  m.SetSources({[] {
                  kube::QueueStats q;
                  q.depth = 2;
                  q.retries = 1;
                  return q;
                },
                nullptr, nullptr, nullptr});
  m.ObserveReconcile(0.01, ReconcileResult::kRequeueAfter);
  m.ObserveQueueWait(0.5);
  m.ObserveWork(0.01);
  m.ObserveApiRequest("PUT", "127.0.0.1:6443", 409, 0.003);
  const std::string text = m.Text();
  const std::string ctl = "controller=\"petnametrainingjob\"";
  const std::string queue = "{" + ctl + ",name=\"petnametrainingjob\"}";
  EXPECT_EQ(Value(text, "controller_runtime_reconcile_total{" + ctl + ",result=\"requeue_after\"}"),
            1);
  EXPECT_EQ(Value(text, "controller_runtime_reconcile_errors_total{" + ctl + "}"), 0);
  EXPECT_EQ(Value(text, "controller_runtime_reconcile_time_seconds_count{" + ctl + "}"), 1);
  EXPECT_EQ(Value(text, "workqueue_queue_duration_seconds_count" + queue), 1);
  EXPECT_EQ(Value(text, "workqueue_work_duration_seconds_count" + queue), 1);
  EXPECT_EQ(Value(text, "workqueue_depth" + queue), 2);
  EXPECT_EQ(Value(text, "workqueue_retries_total" + queue), 1);
  EXPECT_EQ(Value(text, "workqueue_longest_running_processor_seconds" + queue), 0);
  EXPECT_EQ(
      Value(text,
            "rest_client_requests_total{code=\"409\",host=\"127.0.0.1:6443\",method=\"PUT\"}"),
      1);
}

TEST(OperatorMetricsTest, SourcesAreReadAtScrapeTime) {
  OperatorMetrics m;
  EXPECT_EQ(m.Text().find("petname_operator_is_leader"), std::string::npos);
  int64_t depth = 3;
  bool leader = false;
  m.SetSources({[&depth] {
                  kube::QueueStats q;
                  q.depth = depth;
                  q.delayed = 1;
                  q.adds = 7;
                  return q;
                },
                [] { return int64_t{3}; },
                [] {
                  return std::map<std::string, int64_t>{{"Running", 2}, {"Succeeded", 1}};
                },
                [&leader] { return leader; }});
  std::string text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_workqueue_depth"), 4);  // ready + delayed
  EXPECT_EQ(Value(text, "petname_operator_workqueue_adds_total"), 7);
  EXPECT_EQ(Value(text, "petname_operator_informer_lists_total"), 3);
  EXPECT_EQ(Value(text, "petname_operator_jobs{phase=\"Running\"}"), 2);
  EXPECT_EQ(Value(text, "petname_operator_jobs{phase=\"Succeeded\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_is_leader"), 0);
  depth = 0;
  leader = true;
  text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_workqueue_depth"), 1);
  EXPECT_EQ(Value(text, "petname_operator_is_leader"), 1);
}

}  // namespace
}  // namespace petname::operator_metrics
