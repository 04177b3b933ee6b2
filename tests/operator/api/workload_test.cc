#include "operator/kueue/workload.h"

#include <gtest/gtest.h>

#include "operator/jobs/desired.h"
#include "operator/kube/time.h"
#include "tests/operator/controller/test_job.h"

namespace petname::api {
namespace {

using controller::TestJob;

constexpr int64_t kT0 = 1'800'000'000;

const WorkloadPriority kHigh{WorkloadPriority::Kind::kWorkloadPriorityClass, "high", 1000};

Job QueuedJob(int replicas, const std::string& spec_patch = "{}") {
  Job job = TestJob(replicas, R"({"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-a",
    "kueue.x-k8s.io/priority-class": "high"}}, "spec": )" +
                                  spec_patch + "}");
  return job;
}

Json AdmittedWorkload(int count) {
  return Json::parse(R"({"metadata": {"name": "w", "namespace": "ml", "generation": 1,
    "resourceVersion": "7"}, "spec": {"active": true},
    "status": {"conditions": [
      {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
       "lastTransitionTime": "2027-01-15T08:00:00Z"},
      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
       "lastTransitionTime": "2027-01-15T08:00:00Z"}],
     "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "ranks",
       "flavors": {"cpu": "on-demand", "memory": "on-demand"}, "count": )" +
                     std::to_string(count) + "}]}}}");
}

TEST(WorkloadTest, NameIsAValidLabelTiedToTheUid) {
  Job job = QueuedJob(2);
  const std::string name = WorkloadName(job);
  EXPECT_EQ(name.rfind("petnametrainingjob-rex-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("petnametrainingjob-rex-").size() + 5);
  job.name = std::string(47, 'a');
  EXPECT_LE(WorkloadName(job).size(), 63u);
  Job other = QueuedJob(2);
  other.uid = "another-uid";
  EXPECT_NE(WorkloadName(other), WorkloadName(QueuedJob(2)));
}

TEST(WorkloadTest, BuildsOnePodSetOwnedByTheJob) {
  const Job job = QueuedJob(4, R"({"elasticPolicy": {"minReplicas": 2},
    "resources": {"cpu": "2"}})");
  const Json pod = controller::Desired(job).pods.front();
  const Json wl = BuildWorkload(job, pod, kHigh, {});
  EXPECT_EQ(wl["apiVersion"], "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(wl["metadata"]["name"], WorkloadName(job));
  EXPECT_EQ(wl["metadata"]["labels"]["petname.dev/job-name"], "rex");
  EXPECT_EQ(wl["metadata"]["labels"]["kueue.x-k8s.io/job-uid"], "job-uid");
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["uid"], "job-uid");
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(wl["spec"]["queueName"], "team-a");
  ASSERT_EQ(wl["spec"]["podSets"].size(), 1u);
  const Json& ps = wl["spec"]["podSets"][0];
  EXPECT_EQ(ps["name"], "ranks");
  EXPECT_EQ(ps["count"], 4);
  EXPECT_EQ(ps["minCount"], 2);
  EXPECT_EQ(ps["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "2");
  EXPECT_EQ(wl["spec"]["priority"], 1000);
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["kind"], "WorkloadPriorityClass");
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["name"], "high");
}

TEST(WorkloadTest, NoMinCountWithoutElasticPolicyNorClassWithoutPriority) {
  const Job job = QueuedJob(3);
  const Json wl = BuildWorkload(job, controller::Desired(job).pods.front(), {}, {});
  EXPECT_FALSE(wl["spec"]["podSets"][0].contains("minCount"));
  EXPECT_EQ(wl["spec"]["priority"], 0);  // Kueue's jobframework sets it, 0 without a class
  EXPECT_FALSE(wl["spec"].contains("priorityClassRef"));
  EXPECT_FALSE(wl["spec"].contains("maximumExecutionTimeSeconds"));
  EXPECT_FALSE(wl["metadata"].contains("annotations"));
  // Without a queue (a job Kueue manages without one), no queueName: Kueue refuses an empty one.
  const Job unqueued = TestJob(1);
  EXPECT_FALSE(
      BuildWorkload(unqueued, controller::Desired(unqueued).pods.front(), {}, {})["spec"].contains(
          "queueName"));
}

TEST(WorkloadTest, PriorityFromAPodPriorityClassRoundTrips) {
  const Job job = QueuedJob(1);
  const WorkloadPriority pods{WorkloadPriority::Kind::kPriorityClass, "batch-high", 500};
  const Json wl = BuildWorkload(job, controller::Desired(job).pods.front(), pods, {});
  EXPECT_EQ(
      wl["spec"]["priorityClassRef"],
      Json({{"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", "batch-high"}}));
  EXPECT_EQ(wl["spec"]["priority"], 500);
  const WorkloadPriority back = WorkloadPriorityOf(wl);
  EXPECT_EQ(back.kind, WorkloadPriority::Kind::kPriorityClass);
  EXPECT_EQ(back.name, "batch-high");
  EXPECT_EQ(back.value, 500);
  EXPECT_EQ(
      WorkloadPriorityOf(BuildWorkload(job, controller::Desired(job).pods.front(), kHigh, {})).kind,
      WorkloadPriority::Kind::kWorkloadPriorityClass);
  EXPECT_EQ(WorkloadPriorityOf(AdmittedWorkload(1)).kind, WorkloadPriority::Kind::kNone);
}

TEST(WorkloadTest, CopiesWhatKueuesJobframeworkCopiesFromTheJob) {
  const Job job = TestJob(1, R"({"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "team-a",
    "team": "vision", "cost-center": "42", "other": "x",
    "kueue.x-k8s.io/max-exec-time-seconds": "3600"},
    "annotations": {"provreq.kueue.x-k8s.io/ValidUntilSeconds": "0", "note": "not copied"}}})");
  const Json wl = BuildWorkload(job, controller::Desired(job).pods.front(), {},
                                {"team", "cost-center", "absent"});
  EXPECT_EQ(wl["metadata"]["labels"]["team"], "vision");
  EXPECT_EQ(wl["metadata"]["labels"]["cost-center"], "42");
  EXPECT_FALSE(wl["metadata"]["labels"].contains("other"));
  EXPECT_FALSE(wl["metadata"]["labels"].contains("absent"));
  EXPECT_EQ(wl["metadata"]["labels"]["petname.dev/job-name"], "rex");
  EXPECT_EQ(wl["metadata"]["annotations"],
            Json({{"provreq.kueue.x-k8s.io/ValidUntilSeconds", "0"}}));
  EXPECT_EQ(wl["spec"]["maximumExecutionTimeSeconds"], 3600);
  // Kueue reads the label as a positive 32-bit number, and ignores anything else.
  for (const char* bad : {"0", "-5", "12s", "2147483648", "99999999999", ""}) {
    const Job other = TestJob(1, std::string(R"({"metadata": {"labels": {
      "kueue.x-k8s.io/max-exec-time-seconds": ")") +
                                     bad + R"("}}})");
    EXPECT_FALSE(
        BuildWorkload(other, controller::Desired(other).pods.front(), {}, {})["spec"].contains(
            "maximumExecutionTimeSeconds"))
        << bad;
  }
}

TEST(WorkloadTest, ReadsAdmission) {
  const WorkloadState s = WorkloadStateFromJson(AdmittedWorkload(2));
  EXPECT_TRUE(s.exists);
  EXPECT_TRUE(s.quota_reserved);
  EXPECT_TRUE(s.admitted);
  EXPECT_FALSE(s.evicted);
  EXPECT_EQ(s.cluster_queue, "cq");
  EXPECT_EQ(s.admitted_count, 2);
  EXPECT_EQ(s.flavors.at("cpu"), "on-demand");
  EXPECT_FALSE(s.pods_ready.has_value());
}

TEST(WorkloadTest, ReadsEvictionAndPending) {
  Json wl = AdmittedWorkload(2);
  wl["status"]["conditions"].push_back({{"type", "Evicted"},
                                        {"status", "True"},
                                        {"reason", "Preempted"},
                                        {"message", "Preempted to accommodate a workload"}});
  WorkloadState s = WorkloadStateFromJson(wl);
  EXPECT_TRUE(s.evicted);
  EXPECT_EQ(s.evicted_reason, "Preempted");
  EXPECT_EQ(s.evicted_message, "Preempted to accommodate a workload");

  Json pending = Json::parse(R"({"metadata": {"name": "w"}, "status": {"conditions": [
    {"type": "QuotaReserved", "status": "False", "reason": "Pending",
     "message": "couldn't assign flavors to pod set ranks: insufficient quota"}]}})");
  s = WorkloadStateFromJson(pending);
  EXPECT_FALSE(s.quota_reserved);
  EXPECT_FALSE(s.admitted);
  EXPECT_EQ(s.admitted_count, 0);
  EXPECT_EQ(s.pending_message, "couldn't assign flavors to pod set ranks: insufficient quota");
}

TEST(WorkloadTest, ClearReservationAsKueuesJobframework) {
  Json wl = AdmittedWorkload(2);
  wl["status"]["conditions"].push_back(
      {{"type", "Evicted"}, {"status", "True"}, {"reason", "Preempted"}, {"message", "by x"}});
  const Json out = ClearReservation(wl, kT0);
  const WorkloadState s = WorkloadStateFromJson(out);
  EXPECT_FALSE(s.quota_reserved);
  EXPECT_FALSE(s.admitted);
  EXPECT_FALSE(out["status"].contains("admission"));
  EXPECT_EQ(out["metadata"]["resourceVersion"], "7");  // the write is conditional
  bool requeued = false;
  for (const Json& c : out["status"]["conditions"]) {
    if (c["type"] == "Requeued") requeued = c["status"] == "True" && c["reason"] == "Preempted";
    if (c["type"] == "QuotaReserved") {
      EXPECT_EQ(c["reason"], "Pending");
    }
    if (c["type"] == "Admitted") {
      EXPECT_EQ(c["reason"], "NoReservation");
    }
  }
  EXPECT_TRUE(requeued);

  // A PodsReady condition is set back to WaitForStart in the same write: an admission that
  // follows at once is timed from itself, not from a WaitForRecovery of before the eviction.
  Json recovering = AdmittedWorkload(2);
  recovering["status"]["conditions"].push_back(
      {{"type", "Evicted"}, {"status", "True"}, {"reason", "PodsReadyTimeout"}, {"message", "m"}});
  recovering = SetWorkloadPodsReady(recovering, {false, "WaitForRecovery", "failed"}, kT0 - 60);
  const WorkloadState again = WorkloadStateFromJson(ClearReservation(recovering, kT0));
  EXPECT_EQ(again.pods_ready, false);
  EXPECT_EQ(again.pods_ready_reason, "WaitForStart");
  EXPECT_FALSE(WorkloadStateFromJson(out).pods_ready.has_value());  // none is added

  Json deactivated = AdmittedWorkload(2);
  deactivated["status"]["conditions"].push_back(
      {{"type", "Evicted"}, {"status", "True"}, {"reason", "Deactivated"}, {"message", "m"}});
  const Json cleared = ClearReservation(deactivated, kT0);
  for (const Json& c : cleared["status"]["conditions"]) {
    if (c["type"] == "Requeued") {
      EXPECT_EQ(c["status"], "False");
    }
  }
}

TEST(WorkloadTest, FinishAndPodsReady) {
  Json out = FinishWorkload(AdmittedWorkload(1), "FailedToStart", "conflict for nodeSelector", kT0);
  EXPECT_TRUE(WorkloadStateFromJson(out).finished);
  EXPECT_EQ(WorkloadStateFromJson(out).finished_reason, "FailedToStart");
  EXPECT_EQ(WorkloadStateFromJson(out).finished_message, "conflict for nodeSelector");
  out = SetWorkloadPodsReady(AdmittedWorkload(1), {true, "Started", "ready"}, kT0);
  EXPECT_EQ(WorkloadStateFromJson(out).pods_ready, true);
  EXPECT_EQ(WorkloadStateFromJson(out).pods_ready_reason, "Started");
  out = SetWorkloadPodsReady(out, {false, "WaitForRecovery", "a pod failed"}, kT0 + 5);
  const WorkloadState s = WorkloadStateFromJson(out);
  EXPECT_EQ(s.pods_ready, false);
  EXPECT_EQ(s.pods_ready_reason, "WaitForRecovery");
  EXPECT_EQ(out["status"]["conditions"][2]["message"], "a pod failed");
  EXPECT_EQ(out["status"]["conditions"][2]["lastTransitionTime"], kube::FormatTime(kT0 + 5));
}

TEST(WorkloadTest, AdmissionChecksPodSetUpdatesAreReadForTheRanks) {
  Json wl = AdmittedWorkload(1);
  wl["status"]["admissionChecks"] = Json::parse(R"([
    {"name": "prov", "state": "Ready", "podSetUpdates": [
      {"name": "ranks", "labels": {"capacity": "reserved"}},
      {"name": "another-pod-set", "labels": {"ignored": "yes"}}]},
    {"name": "other", "state": "Ready"},
    {"name": "third", "state": "Ready", "podSetUpdates": [
      {"name": "ranks", "nodeSelector": {"pool": "provisioned"}}]}])");
  const WorkloadState s = WorkloadStateFromJson(wl);
  ASSERT_EQ(s.pod_set_updates.size(), 2u);
  EXPECT_EQ(s.pod_set_updates[0]["labels"]["capacity"], "reserved");
  EXPECT_EQ(s.pod_set_updates[1]["nodeSelector"]["pool"], "provisioned");
}

TEST(WorkloadTest, ResourceInUseFinalizerFromCreationUntilRemoved) {
  const Job job = QueuedJob(2);
  Json wl = BuildWorkload(job, controller::Desired(job).pods.front(), kHigh, {});
  EXPECT_EQ(wl["metadata"]["finalizers"], Json::array({kResourceInUseFinalizer}));
  wl["metadata"]["finalizers"].push_back("example.com/other");
  wl["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  WorkloadState s = WorkloadStateFromJson(wl);
  EXPECT_TRUE(s.in_use);
  EXPECT_TRUE(s.deleting);
  const Json out = WithoutResourceInUse(wl);
  EXPECT_EQ(out["metadata"]["finalizers"], Json::array({"example.com/other"}));
  s = WorkloadStateFromJson(out);
  EXPECT_FALSE(s.in_use);
  EXPECT_EQ(WithoutResourceInUse(AdmittedWorkload(1)), AdmittedWorkload(1));
}

}  // namespace
}  // namespace petname::api
