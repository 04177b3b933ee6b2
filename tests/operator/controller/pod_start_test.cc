#include "operator/jobs/pod_start.h"

#include <gtest/gtest.h>

#include <vector>

#include "operator/kube/time.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr int64_t kNow = 1'800'000'000;

std::string At(int64_t t) { return kube::FormatTime(t); }

// A Pending rank pod created at kNow - 100 whose containers wait as `containers` says.
Json PendingPod(const std::vector<Json>& containers, const std::vector<Json>& init = {}) {
  return {{"metadata",
           {{"name", "rex-rank-1"},
            {"creationTimestamp", At(kNow - 100)},
            {"labels", {{"petname.dev/rank", "1"}}}}},
          {"status",
           {{"phase", "Pending"},
            {"containerStatuses", Json(containers)},
            {"initContainerStatuses", Json(init)}}}};
}

Json Waiting(const std::string& name, const std::string& reason, const std::string& msg = "") {
  return {{"name", name},
          {"image", name == "trainer" ? "localhost/petname:dev" : "busybox:1"},
          {"state", {{"waiting", {{"reason", reason}, {"message", msg}}}}}};
}

bool Blocked(const Json& pod, StartBlock* b) {
  return PodStartBlocked(api::PodFromJson(pod), kNow, b);
}

TEST(PodStartTest, ImageAndConfigurationErrorsAreStartErrors) {
  for (const char* reason :
       {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
        "CreateContainerConfigError", "CreateContainerError", "RunContainerError"}) {
    EXPECT_TRUE(IsStartError(reason)) << reason;
  }
  for (const char* reason : {"ContainerCreating", "PodInitializing", "CrashLoopBackOff", ""}) {
    EXPECT_FALSE(IsStartError(reason)) << reason;
  }
}

TEST(PodStartTest, ATrainerThatCannotPullItsImageBlocksThePodSinceItsCreation) {
  StartBlock b;
  ASSERT_TRUE(Blocked(PendingPod({Waiting("trainer", "ImagePullBackOff",
                                          "Back-off pulling image \"localhost/petname:dev\"")}),
                      &b));
  EXPECT_TRUE(b.start_error);
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.pod, "rex-rank-1");
  EXPECT_EQ(b.reason, "ImagePullBackOff");
  EXPECT_EQ(b.container, "trainer");
  EXPECT_EQ(b.image, "localhost/petname:dev");
  EXPECT_EQ(b.since, kNow - 100);
  EXPECT_EQ(DescribeBlock(b), "rex-rank-1: Back-off pulling image \"localhost/petname:dev\"");
  EXPECT_EQ(DescribeStartFailure(b, 300),
            "rex-rank-1: container trainer did not start within 300 s "
            "(runPolicy.startErrorTimeoutSeconds): ImagePullBackOff for image "
            "localhost/petname:dev: Back-off pulling image \"localhost/petname:dev\"");
}

TEST(PodStartTest, TheClockStartsWhenTheContainerWasDueToStart) {
  Json pod = PendingPod({Waiting("trainer", "CreateContainerConfigError")});
  pod["status"]["conditions"] = {
      {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", At(kNow - 60)}},
      {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", At(kNow - 20)}}};
  StartBlock b;
  ASSERT_TRUE(Blocked(pod, &b));
  EXPECT_EQ(b.since, kNow - 20);  // the trainer starts once the init containers are done
  EXPECT_EQ(DescribeBlock(b),
            "rex-rank-1: CreateContainerConfigError (image localhost/petname:dev)");

  // An init container is due once the pod is scheduled.
  pod["status"]["initContainerStatuses"] =
      Json::array({Waiting("fetch-data", "ErrImagePull", "not found")});
  ASSERT_TRUE(Blocked(pod, &b));
  EXPECT_TRUE(b.init);
  EXPECT_EQ(b.container, "fetch-data");
  EXPECT_EQ(b.since, kNow - 60);
  EXPECT_EQ(DescribeBlock(b), "rex-rank-1 (init container fetch-data): not found");

  // Without any timestamp: now.
  pod["metadata"].erase("creationTimestamp");
  pod["status"].erase("conditions");
  ASSERT_TRUE(Blocked(pod, &b));
  EXPECT_EQ(b.since, kNow);
}

TEST(PodStartTest, ASidecarsStartErrorNamesTheSidecar) {
  StartBlock b;
  ASSERT_TRUE(Blocked(PendingPod({Waiting("trainer", "ContainerCreating"),
                                  Waiting("uploader", "InvalidImageName", "bad name")}),
                      &b));
  EXPECT_EQ(b.container, "uploader");
  EXPECT_EQ(DescribeBlock(b), "rex-rank-1 (container uploader): bad name");
}

TEST(PodStartTest, UnschedulableIsReportedAsABlockButNotAStartError) {
  Json pod = PendingPod({});
  pod["status"]["conditions"] = {{{"type", "PodScheduled"},
                                  {"status", "False"},
                                  {"reason", "Unschedulable"},
                                  {"message", "0/1 nodes are available: 1 Insufficient cpu."},
                                  {"lastTransitionTime", At(kNow - 5)}}};
  StartBlock b;
  ASSERT_TRUE(Blocked(pod, &b));
  EXPECT_FALSE(b.start_error);
  EXPECT_EQ(b.reason, "Unschedulable");
  EXPECT_EQ(b.since, kNow - 5);
  EXPECT_EQ(DescribeBlock(b), "rex-rank-1: 0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(PodStartTest, StartingRunningOrFinishedPodsAreNotBlocked) {
  StartBlock b;
  EXPECT_FALSE(Blocked(PendingPod({Waiting("trainer", "ContainerCreating")},
                                  {Waiting("fetch-data", "PodInitializing")}),
                       &b));
  Json running = PendingPod({Waiting("uploader", "ImagePullBackOff")});
  running["status"]["phase"] = "Running";
  EXPECT_FALSE(Blocked(running, &b));
  running["status"]["phase"] = "Failed";
  EXPECT_FALSE(Blocked(running, &b));
}

}  // namespace
}  // namespace petname::controller
