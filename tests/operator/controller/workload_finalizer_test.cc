#include "operator/kueue/workload_finalizer.h"

#include <gtest/gtest.h>

#include "operator/kube/object.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

constexpr int64_t kT0 = 1'800'000'000;

api::WorkloadState InUse(bool deleting, bool finished) {
  api::WorkloadState wl;
  wl.exists = true;
  wl.in_use = true;
  wl.deleting = deleting;
  wl.finished = finished;
  return wl;
}

api::ObservedPod Pod(const std::string& phase, bool deleting = false) {
  api::ObservedPod p = api::PodFromJson(TestPod("rex-rank-0", "job-uid", phase));
  p.deleting = deleting;
  return p;
}

TEST(WorkloadFinalizerTest, ReleasedOnlyOnceNoPodHoldsResources) {
  // Deleted by hand while the ranks run: kept until the last pod is gone, even a terminating one.
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Running")}, kT0));
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Running", true)}, kT0));
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Pending")}, kT0));
  EXPECT_TRUE(ReleaseWorkload(InUse(true, false), {}, kT0));
  // Finished: finished pods use nothing (cleanPodPolicy None keeps them).
  EXPECT_TRUE(ReleaseWorkload(InUse(false, true), {Pod("Succeeded"), Pod("Failed")}, kT0));
  EXPECT_FALSE(ReleaseWorkload(InUse(false, true), {Pod("Succeeded"), Pod("Running")}, kT0));
  // A Workload in use by a live job keeps it; so does one without the finalizer (nothing to do).
  EXPECT_FALSE(ReleaseWorkload(InUse(false, false), {}, kT0));
  api::WorkloadState without = InUse(true, false);
  without.in_use = false;
  EXPECT_FALSE(ReleaseWorkload(without, {}, kT0));
  EXPECT_FALSE(ReleaseWorkload(api::WorkloadState{}, {}, kT0));
}

nlohmann::json WorkloadOf(const std::string& uid, bool finalizer) {
  nlohmann::json wl = {{"metadata",
                        {{"name", "petnametrainingjob-rex-" + uid},
                         {"namespace", "ml"},
                         {"labels", {{api::kJobNameLabel, "rex"}, {api::kJobUidLabel, uid}}},
                         {"ownerReferences", {{{"uid", uid}, {"controller", true}}}}}}};
  if (finalizer) wl["metadata"]["finalizers"] = {api::kResourceInUseFinalizer};
  return wl;
}

TEST(WorkloadFinalizerTest, OrphansOfAJobThatIsGoneOnceItsPodsAre) {
  const std::vector<nlohmann::json> workloads = {WorkloadOf("old", true), WorkloadOf("new", true),
                                                 WorkloadOf("older", false)};
  // The job was deleted: its pods are still being removed by the garbage collector.
  EXPECT_TRUE(
      OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "old", "Running")}, "new", kT0).empty());
  // Their pods are gone (or finished): released. The live job's own and one without the
  // finalizer are left alone.
  const std::vector<nlohmann::json> out =
      OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "old", "Succeeded")}, "new", kT0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(kube::Name(out[0]), "petnametrainingjob-rex-old");
  // No job of that name any more: every Workload with the finalizer whose pods are gone.
  EXPECT_EQ(OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "new", "Running")}, "", kT0).size(),
            1u);
  EXPECT_EQ(OrphanedWorkloads(workloads, {}, "", kT0).size(), 2u);
}

TEST(WorkloadFinalizerTest, APodOnALostNodeHoldsNothingPastItsGracePeriod) {
  // A running job's Workload deleted by hand: its pod was deleted at kT0 with a 30 s grace
  // period, and its node never confirms (the pod stays Terminating and Running).
  api::ObservedPod lost = Pod("Running", true);
  lost.deletion_time = kT0 + 30;
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {lost}, kT0 + 29));  // may still checkpoint
  EXPECT_TRUE(ReleaseWorkload(InUse(true, false), {lost}, kT0 + 30));
  EXPECT_TRUE(ReleaseWorkload(InUse(true, false), {lost}, kT0 + 3600));
  // The same for a Workload left by a job that is gone.
  nlohmann::json pod = TestPod("rex-rank-0", "old", "Running");
  pod["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:30Z";
  const std::vector<nlohmann::json> left = {WorkloadOf("old", true)};
  const int64_t deadline = api::PodFromJson(pod).deletion_time.value();
  EXPECT_TRUE(OrphanedWorkloads(left, {pod}, "", deadline - 1).empty());
  EXPECT_EQ(OrphanedWorkloads(left, {pod}, "", deadline).size(), 1u);
}

}  // namespace
}  // namespace petname::controller
