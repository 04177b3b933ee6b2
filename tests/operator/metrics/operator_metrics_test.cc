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
  m.ObserveReconcile(0.01, true);
  m.ObserveReconcile(0.02, false);
  m.ObserveQueueWait(0.5);
  m.ObserveApiRequest("GET", 200, 0.003);
  m.ObserveApiRequest("GET", 200, 0.004);
  m.ObserveApiRequest("POST", 0, 1.0);
  std::string text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_reconcile_total"), 2);
  EXPECT_EQ(Value(text, "petname_operator_reconcile_errors_total"), 1);
  EXPECT_EQ(Value(text, "petname_operator_reconcile_duration_seconds_count"), 2);
  EXPECT_EQ(Value(text, "petname_operator_workqueue_queue_duration_seconds_count"), 1);
  EXPECT_EQ(Value(text, "petname_operator_api_requests_total{code=\"200\",verb=\"GET\"}"), 2);
  EXPECT_EQ(Value(text, "petname_operator_api_requests_total{code=\"<error>\",verb=\"POST\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_api_request_duration_seconds_count{verb=\"GET\"}"), 2);
  EXPECT_NE(text.find("process_resident_memory_bytes"), std::string::npos);
}

TEST(OperatorMetricsTest, SourcesAreReadAtScrapeTime) {
  OperatorMetrics m;
  EXPECT_EQ(m.Text().find("petname_operator_is_leader"), std::string::npos);
  int64_t depth = 3;
  bool leader = false;
  m.SetSources({[&depth] { return depth; }, [] { return int64_t{7}; }, [] { return int64_t{3}; },
                [] {
                  return std::map<std::string, int64_t>{{"Running", 2}, {"Succeeded", 1}};
                },
                [&leader] { return leader; }});
  std::string text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_workqueue_depth"), 3);
  EXPECT_EQ(Value(text, "petname_operator_workqueue_adds_total"), 7);
  EXPECT_EQ(Value(text, "petname_operator_informer_lists_total"), 3);
  EXPECT_EQ(Value(text, "petname_operator_jobs{phase=\"Running\"}"), 2);
  EXPECT_EQ(Value(text, "petname_operator_jobs{phase=\"Succeeded\"}"), 1);
  EXPECT_EQ(Value(text, "petname_operator_is_leader"), 0);
  depth = 0;
  leader = true;
  text = m.Text();
  EXPECT_EQ(Value(text, "petname_operator_workqueue_depth"), 0);
  EXPECT_EQ(Value(text, "petname_operator_is_leader"), 1);
}

}  // namespace
}  // namespace petname::operator_metrics
