#include "operator/api/pod.h"

#include <gtest/gtest.h>

#include "operator/kube/time.h"

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
  EXPECT_EQ(pod.deletion_time, 1795428000);  // 2026-11-23T10:00:00Z: the grace period's end
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
  EXPECT_FALSE(pod.deletion_time);
  EXPECT_EQ(pod.phase, "");
  EXPECT_EQ(pod.pod_ip, "");
  EXPECT_FALSE(pod.trainer_terminated);
  EXPECT_EQ(pod.Condition("Ready"), nullptr);
  EXPECT_EQ(LabelNumber("1234567890", 7), 7);
  EXPECT_EQ(LabelNumber("42", 7), 42);
}

TEST(ObservedPodTest, ReadsWaitingContainersInitContainersFirst) {
  ObservedPod pod = PodFromJson(Json::parse(R"({
    "metadata": {"name": "rex-rank-0", "creationTimestamp": "2026-11-23T10:00:00Z"},
    "status": {"phase": "Pending",
      "containerStatuses": [
        {"name": "trainer", "image": "localhost/petname:dev",
         "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}},
        {"name": "sidecar", "image": "busybox", "state": {"running": {}}}],
      "initContainerStatuses": [
        {"name": "fetch-data", "image": "petname:1",
         "state": {"waiting": {"reason": "PodInitializing"}}}]}})"));
  int64_t created = 0;
  ASSERT_TRUE(kube::ParseTime("2026-11-23T10:00:00Z", &created));
  EXPECT_EQ(pod.creation_time, std::optional<int64_t>(created));
  ASSERT_EQ(pod.waiting.size(), 2u);
  EXPECT_EQ(pod.waiting[0].name, "fetch-data");
  EXPECT_TRUE(pod.waiting[0].init);
  EXPECT_EQ(pod.waiting[0].reason, "PodInitializing");
  EXPECT_EQ(pod.waiting[1].name, "trainer");
  EXPECT_FALSE(pod.waiting[1].init);
  EXPECT_EQ(pod.waiting[1].image, "localhost/petname:dev");
  EXPECT_EQ(pod.waiting[1].reason, "ImagePullBackOff");
  EXPECT_EQ(pod.waiting[1].message, "Back-off pulling image");
}

}  // namespace
}  // namespace petname::api
