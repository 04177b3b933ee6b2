#include "operator/controller/workload_finalizer.h"

#include <gtest/gtest.h>

#include "operator/kube/object.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

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
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Running")}));
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Running", true)}));
  EXPECT_FALSE(ReleaseWorkload(InUse(true, false), {Pod("Pending")}));
  EXPECT_TRUE(ReleaseWorkload(InUse(true, false), {}));
  // Finished: finished pods use nothing (cleanPodPolicy None keeps them).
  EXPECT_TRUE(ReleaseWorkload(InUse(false, true), {Pod("Succeeded"), Pod("Failed")}));
  EXPECT_FALSE(ReleaseWorkload(InUse(false, true), {Pod("Succeeded"), Pod("Running")}));
  // A Workload in use by a live job keeps it; so does one without the finalizer (nothing to do).
  EXPECT_FALSE(ReleaseWorkload(InUse(false, false), {}));
  api::WorkloadState without = InUse(true, false);
  without.in_use = false;
  EXPECT_FALSE(ReleaseWorkload(without, {}));
  EXPECT_FALSE(ReleaseWorkload(api::WorkloadState{}, {}));
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
      OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "old", "Running")}, "new").empty());
  // Their pods are gone (or finished): released. The live job's own and one without the
  // finalizer are left alone.
  const std::vector<nlohmann::json> out =
      OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "old", "Succeeded")}, "new");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(kube::Name(out[0]), "petnametrainingjob-rex-old");
  // No job of that name any more: every Workload with the finalizer whose pods are gone.
  EXPECT_EQ(OrphanedWorkloads(workloads, {TestPod("rex-rank-0", "new", "Running")}, "").size(), 1u);
  EXPECT_EQ(OrphanedWorkloads(workloads, {}, "").size(), 2u);
}

}  // namespace
}  // namespace petname::controller
