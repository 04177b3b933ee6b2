#include "operator/kueue/workload_drift.h"

#include <gtest/gtest.h>

#include "operator/jobs/desired.h"
#include "operator/kueue/workload.h"
#include "tests/operator/controller/test_job.h"

namespace petname::api {
namespace {

using controller::TestJob;

// The Workload BuildWorkload makes for a job in queue `queue` with `spec_patch` and `labels`.
Json WorkloadFor(const std::string& spec_patch, const std::string& queue = "team-a",
                 const std::string& priority_class = "high") {
  Json labels = {{kQueueNameLabel, queue}};
  if (!priority_class.empty()) labels[kPriorityClassLabel] = priority_class;
  const Json patch = {{"metadata", {{"labels", labels}}}, {"spec", Json::parse(spec_patch)}};
  const Job job = TestJob(2, patch.dump());
  WorkloadPriority priority;
  if (!priority_class.empty()) {
    priority = {WorkloadPriority::Kind::kWorkloadPriorityClass, priority_class, 100};
  }
  return BuildWorkload(job, controller::Desired(job).pods.front(), priority, {});
}

constexpr char kBase[] = R"({"resources": {"cpu": "1", "memory": "1Gi"}})";

TEST(WorkloadDriftTest, TheSameJobMatches) {
  const WorkloadDrift d = CompareWorkload(WorkloadFor(kBase), WorkloadFor(kBase));
  EXPECT_FALSE(d.any());
  EXPECT_FALSE(d.priority_presence);
}

TEST(WorkloadDriftTest, QuantitiesAreComparedByValue) {
  // Kueue's webhook writes quantities back in canonical form.
  const Json canonical = WorkloadFor(R"({"resources": {"cpu": "1000m", "memory": "1024Mi"}})");
  EXPECT_FALSE(CompareWorkload(canonical, WorkloadFor(kBase)).any());
  EXPECT_TRUE(CompareWorkload(WorkloadFor(R"({"resources": {"cpu": "500m"}})"),
                              WorkloadFor(R"({"resources": {"cpu": "0.5"}})"))
                  .pod_sets == false);
}

TEST(WorkloadDriftTest, ReplicasMinReplicasAndResourcesDiffer) {
  const Json wl = WorkloadFor(kBase);
  EXPECT_TRUE(CompareWorkload(wl, WorkloadFor(R"({"replicas": 3, "resources": {"cpu": "1",
    "memory": "1Gi"}})"))
                  .pod_sets);
  EXPECT_TRUE(CompareWorkload(wl, WorkloadFor(R"({"elasticPolicy": {"minReplicas": 1},
    "resources": {"cpu": "1", "memory": "1Gi"}})"))
                  .pod_sets);
  EXPECT_TRUE(
      CompareWorkload(wl, WorkloadFor(R"({"resources": {"cpu": "2", "memory": "1Gi"}})")).pod_sets);
  EXPECT_TRUE(
      CompareWorkload(wl, WorkloadFor(R"({"resources": {"cpu": "1", "memory": "2Gi"}})")).pod_sets);
  const WorkloadDrift gpus = CompareWorkload(
      wl, WorkloadFor(R"({"resources": {"cpu": "1", "memory": "1Gi", "gpusPerReplica": 1}})"));
  EXPECT_TRUE(gpus.pod_sets);
  EXPECT_FALSE(gpus.queue);
  EXPECT_FALSE(gpus.priority_class);
}

TEST(WorkloadDriftTest, QueueAndPriorityClassLabels) {
  const Json wl = WorkloadFor(kBase);
  const WorkloadDrift queue = CompareWorkload(wl, WorkloadFor(kBase, "team-b"));
  EXPECT_TRUE(queue.queue);
  EXPECT_FALSE(queue.pod_sets);
  const WorkloadDrift renamed = CompareWorkload(wl, WorkloadFor(kBase, "team-a", "low"));
  EXPECT_TRUE(renamed.priority_class);
  EXPECT_FALSE(renamed.priority_presence);
  const WorkloadDrift removed = CompareWorkload(wl, WorkloadFor(kBase, "team-a", ""));
  EXPECT_TRUE(removed.priority_class);
  EXPECT_TRUE(removed.priority_presence);
  EXPECT_EQ(WorkloadPriorityClass(wl), "high");
}

TEST(WorkloadDriftTest, WithSpecOfTakesTheJobsSpecAndKeepsTheRest) {
  Json current = WorkloadFor(kBase);
  current["metadata"]["resourceVersion"] = "42";
  current["spec"]["active"] = true;
  current["status"] = {{"conditions", Json::array()}};
  const Json out = WithSpecOf(current, WorkloadFor(R"({"replicas": 4})", "team-b", ""), false);
  EXPECT_EQ(out["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(out["spec"]["active"], true);
  EXPECT_TRUE(out.contains("status"));
  EXPECT_EQ(out["spec"]["queueName"], "team-b");
  EXPECT_EQ(out["spec"]["podSets"][0]["count"], 4);
  EXPECT_FALSE(out["spec"].contains("priorityClassRef"));
  EXPECT_EQ(out["spec"]["priority"], 0);
  EXPECT_FALSE(CompareWorkload(out, WorkloadFor(R"({"replicas": 4})", "team-b", "")).any());
}

TEST(WorkloadDriftTest, AReservedWorkloadTakesThePriorityAlone) {
  // After a gang restart the rank pod's template carries another restart generation: a PUT of
  // the whole pod set would be refused by Kueue's webhook (spec.podSets is unchangeable while
  // quota is reserved), and the priority change with it.
  Json current = WorkloadFor(kBase);
  current["spec"]["podSets"][0]["template"]["metadata"]["labels"]
         ["petname.dev/restart-generation"] = "0";
  Json wanted = WorkloadFor(kBase, "team-a", "low");
  wanted["spec"]["priority"] = 10;
  wanted["spec"]["podSets"][0]["template"]["metadata"]["labels"]["petname.dev/restart-generation"] =
      "1";
  const Json out = WithSpecOf(current, wanted, true);
  EXPECT_EQ(out["spec"]["podSets"], current["spec"]["podSets"]);
  EXPECT_EQ(out["spec"]["priorityClassRef"]["name"], "low");
  EXPECT_EQ(out["spec"]["priority"], 10);
  EXPECT_EQ(out["spec"]["queueName"], current["spec"]["queueName"]);
  // Unreserved, the whole spec follows the job.
  EXPECT_EQ(WithSpecOf(current, wanted, false)["spec"]["podSets"], wanted["spec"]["podSets"]);
}

TEST(WorkloadDriftTest, MaximumExecutionTimeCannotChangeWhileReserved) {
  Json limited = WorkloadFor(kBase);
  limited["spec"]["maximumExecutionTimeSeconds"] = 60;
  const WorkloadDrift d = CompareWorkload(WorkloadFor(kBase), limited);
  EXPECT_TRUE(d.execution_time);
  EXPECT_TRUE(d.any());
  EXPECT_TRUE(d.immutable_while_reserved());
  EXPECT_FALSE(CompareWorkload(limited, limited).any());
  EXPECT_EQ(WithSpecOf(WorkloadFor(kBase), limited, false)["spec"]["maximumExecutionTimeSeconds"],
            60);
  EXPECT_FALSE(WithSpecOf(limited, WorkloadFor(kBase), false)["spec"].contains(
      "maximumExecutionTimeSeconds"));
}

TEST(WorkloadDriftTest, APodPriorityClassKeepsItsPriority) {
  // Kueue updates the priority of a Workload without a class or with a WorkloadPriorityClass
  // only: one whose priority came from the pods' PriorityClass ignores the job's label.
  Json from_pods = WorkloadFor(kBase, "team-a", "");
  from_pods["spec"]["priorityClassRef"] = {
      {"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", "batch"}};
  const WorkloadDrift d = CompareWorkload(from_pods, WorkloadFor(kBase, "team-a", "high"));
  EXPECT_FALSE(d.priority_class);
  EXPECT_FALSE(d.priority_presence);
  EXPECT_FALSE(d.any());
  EXPECT_EQ(WorkloadPriorityClass(from_pods), "");
}

TEST(WorkloadDriftTest, QuantityValues) {
  long double v = 0;
  ASSERT_TRUE(QuantityValue("500m", &v));
  EXPECT_DOUBLE_EQ(static_cast<double>(v), 0.5);
  ASSERT_TRUE(QuantityValue("1.5Gi", &v));
  EXPECT_DOUBLE_EQ(static_cast<double>(v), 1.5 * 1024 * 1024 * 1024);
  ASSERT_TRUE(QuantityValue("2e3", &v));
  EXPECT_DOUBLE_EQ(static_cast<double>(v), 2000);
  ASSERT_TRUE(QuantityValue(3, &v));
  EXPECT_DOUBLE_EQ(static_cast<double>(v), 3);
  EXPECT_FALSE(QuantityValue("lots", &v));
  EXPECT_FALSE(QuantityValue("1Xi", &v));
  EXPECT_FALSE(QuantityValue(Json(), &v));
}

}  // namespace
}  // namespace petname::api
