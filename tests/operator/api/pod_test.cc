#include "operator/api/pod.h"

#include <gtest/gtest.h>

namespace petname::api {
namespace {

using Json = nlohmann::json;

TEST(ObservedPodTest, ReadsWhatTheStatusDecisionsNeed) {
  ObservedPod pod = PodFromJson(Json::parse(R"({
    "metadata": {"name": "rex-rank-1", "deletionTimestamp": "2026-11-23T10:00:00Z",
                 "labels": {"petname.dev/rank": "1", "petname.dev/restart-generation": "2"}},
    "status": {"phase": "Failed", "reason": "Evicted", "message": "low on memory",
      "podIP": "10.0.0.7",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "0/1 nodes", "lastTransitionTime": "2026-11-23T09:00:00Z"},
                     {"type": "DisruptionTarget", "status": "True"}],
      "containerStatuses": [
        {"name": "sidecar", "state": {"terminated": {"exitCode": 0}}},
        {"name": "trainer", "state": {"running": {}},
         "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}})"));
  EXPECT_EQ(pod.name, "rex-rank-1");
  EXPECT_EQ(pod.rank, 1);
  EXPECT_EQ(pod.restart_generation, 2);
  EXPECT_TRUE(pod.deleting);
  EXPECT_EQ(pod.phase, "Failed");
  EXPECT_EQ(pod.reason, "Evicted");
  EXPECT_EQ(pod.pod_ip, "10.0.0.7");
  EXPECT_TRUE(pod.ConditionTrue("DisruptionTarget"));
  ASSERT_NE(pod.Condition("PodScheduled"), nullptr);
  EXPECT_EQ(pod.Condition("PodScheduled")->reason, "Unschedulable");
  EXPECT_TRUE(pod.Condition("PodScheduled")->last_transition_time);
  ASSERT_TRUE(pod.trainer_terminated);
  EXPECT_EQ(pod.trainer_terminated->exit_code, 137);
  EXPECT_EQ(pod.trainer_terminated->reason, "OOMKilled");
}

TEST(ObservedPodTest, MissingOrMalformedFieldsReadAsDefaults) {
  ObservedPod pod = PodFromJson(
      {{"metadata", {{"name", "p"}, {"labels", {{"petname.dev/rank", "x1"}}}}},
       {"status", {{"containerStatuses", {{{"name", "c"}, {"state", {{"waiting", {}}}}}}}}}});
  EXPECT_EQ(pod.rank, -1);
  EXPECT_EQ(pod.restart_generation, 0);
  EXPECT_FALSE(pod.deleting);
  EXPECT_EQ(pod.phase, "");
  EXPECT_EQ(pod.pod_ip, "");
  EXPECT_FALSE(pod.trainer_terminated);
  EXPECT_EQ(pod.Condition("Ready"), nullptr);
  EXPECT_EQ(LabelNumber("1234567890", 7), 7);
  EXPECT_EQ(LabelNumber("42", 7), 42);
}

}  // namespace
}  // namespace petname::api
