#include "operator/kueue/admission_merge.h"

#include <gtest/gtest.h>

#include "operator/jobs/rank_pod.h"
#include "tests/operator/controller/test_job.h"

namespace petname::api {
namespace {

using controller::TestJob;

Job JobWith(const std::string& spec_patch) { return TestJob(1, R"({"spec": )" + spec_patch + "}"); }

Json Flavor(const std::string& spec) { return Json::parse(R"({"spec": )" + spec + "}"); }

Json Updates(const std::string& list) { return Json::parse(list); }

TEST(AdmissionMergeTest, FlavorNodeLabelsAndTolerationsReachThePods) {
  const Json spot = Flavor(R"({"nodeLabels": {"pool": "spot"},
    "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]})");
  Job job = JobWith(R"({"scheduling": {"nodeSelector": {"zone": "a"}}})");
  ASSERT_TRUE(MergeAdmission({spot}, Json::array(), &job.spec).ok());
  ASSERT_TRUE(MergeAdmission({spot}, Json::array(), &job.spec).ok());  // idempotent
  EXPECT_EQ(job.spec.scheduling["nodeSelector"], Json::parse(R"({"zone": "a", "pool": "spot"})"));
  EXPECT_EQ(job.spec.scheduling["tolerations"].size(), 1u);
  const Json pod = controller::RankPod(job, 0);
  EXPECT_EQ(pod["spec"]["nodeSelector"]["pool"], "spot");
  EXPECT_EQ(pod["spec"]["tolerations"][0]["key"], "spot");

  // Where the job sets its nodeSelector (its template), the flavor's labels go too.
  Job templated = JobWith(R"({"template": {"spec": {"nodeSelector": {"zone": "b"}}}})");
  ASSERT_TRUE(MergeAdmission({spot}, Json::array(), &templated.spec).ok());
  EXPECT_EQ(templated.spec.pod_template.spec["nodeSelector"]["pool"], "spot");
  EXPECT_FALSE(templated.spec.scheduling.contains("nodeSelector"));

  // Of two flavors setting one key, the first wins (Kueue's MergeKeepFirst), no conflict.
  Job two = JobWith("{}");
  ASSERT_TRUE(MergeAdmission({spot, Flavor(R"({"nodeLabels": {"pool": "gpu", "gpu": "h100"}})")},
                             Json::array(), &two.spec)
                  .ok());
  EXPECT_EQ(two.spec.scheduling["nodeSelector"], Json::parse(R"({"pool": "spot", "gpu": "h100"})"));
  // No flavor label, no toleration: the job is left as it is.
  Job plain = JobWith("{}");
  ASSERT_TRUE(MergeAdmission({Flavor("{}")}, Json::array(), &plain.spec).ok());
  EXPECT_FALSE(plain.spec.scheduling.contains("nodeSelector"));
  EXPECT_FALSE(plain.spec.scheduling.contains("tolerations"));
}

TEST(AdmissionMergeTest, PodSetUpdatesReachThePodsButNotTheOperatorsKeys) {
  Job job = JobWith(R"({"scheduling": {"nodeSelector": {"zone": "a"}}})");
  const Json updates = Updates(R"([
    {"name": "ranks", "labels": {"capacity": "reserved", "petname.dev/job-name": "other"},
     "annotations": {"cluster-autoscaler.kubernetes.io/consume-provisioning-request": "pr-1"},
     "nodeSelector": {"pool": "provisioned"},
     "tolerations": [{"key": "prov", "operator": "Exists", "effect": "NoSchedule"}]}])");
  ASSERT_TRUE(MergeAdmission({}, updates, &job.spec).ok());
  EXPECT_TRUE(controller::CheckPodTemplate(job).ok());
  const Json pod = controller::RankPod(job, 0);
  EXPECT_EQ(pod["metadata"]["labels"]["capacity"], "reserved");
  EXPECT_EQ(pod["metadata"]["labels"]["petname.dev/job-name"], "rex");  // the operator's
  EXPECT_EQ(pod["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/"
                                           "consume-provisioning-request"],
            "pr-1");
  EXPECT_EQ(pod["spec"]["nodeSelector"], Json::parse(R"({"pool": "provisioned", "zone": "a"})"));
  EXPECT_EQ(pod["spec"]["tolerations"][0]["key"], "prov");
}

TEST(AdmissionMergeTest, AClashWithTheJobIsRefusedAndChangesNothing) {
  Job job = JobWith(R"({"scheduling": {"nodeSelector": {"zone": "a", "pool": "x"}},
    "labels": {"team": "ml"}})");
  const JobSpec before = job.spec;
  Status s =
      MergeAdmission({Flavor(R"({"nodeLabels": {"pool": "spot"}})")}, Json::array(), &job.spec);
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "conflict for nodeSelector key pool: the job has \"x\", the admission \"spot\"");
  EXPECT_EQ(job.spec.scheduling, before.scheduling);

  // A label the job's pods carry (spec.labels) set to another value by an admission check.
  s = MergeAdmission({}, Updates(R"([{"name": "ranks", "labels": {"team": "infra"}}])"), &job.spec);
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(s.message().find("conflict for labels key team"), std::string::npos) << s.message();
  EXPECT_TRUE(job.spec.pod_template.labels.empty());

  // Two admission checks, or a check and the flavor, that disagree.
  s = MergeAdmission({Flavor(R"({"nodeLabels": {"pool": "x"}})")},
                     Updates(R"([{"name": "ranks", "nodeSelector": {"pool": "provisioned"}}])"),
                     &job.spec);
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(s.message().find("another admission check or the flavor"), std::string::npos);

  // The same value is no clash.
  ASSERT_TRUE(MergeAdmission({Flavor(R"({"nodeLabels": {"pool": "x"}})")},
                             Updates(R"([{"name": "ranks", "labels": {"team": "ml"}}])"), &job.spec)
                  .ok());
  EXPECT_EQ(job.spec.scheduling["nodeSelector"], Json::parse(R"({"zone": "a", "pool": "x"})"));
}

TEST(AdmissionMergeTest, KueuesOwnPodLabelsReachTheRanks) {
  const Json wl = Json::parse(R"({"spec": {"queueName": "team-a"},
    "status": {"admission": {"clusterQueue": "cq-1"}}})");
  Job job = JobWith("{}");
  ASSERT_TRUE(MergeAdmission({}, Json::array({KueuePodLabels(wl)}), &job.spec).ok());
  const Json pod = controller::RankPod(job, 0);
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/podset"], "ranks");
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/local-queue-name"], "team-a");
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/cluster-queue-name"], "cq-1");
  // A ClusterQueue name that is no label value is left out, as Kueue leaves it out.
  const Json dotted = Json::parse(R"({"spec": {"queueName": "q"},
    "status": {"admission": {"clusterQueue": "team.cq"}}})");
  EXPECT_FALSE(KueuePodLabels(dotted)["labels"].contains("kueue.x-k8s.io/cluster-queue-name"));
}

TEST(AdmissionMergeTest, AnAdmissionByTopologyIsRefused) {
  WorkloadState plain;
  EXPECT_TRUE(TopologyRefusal(plain, {Flavor(R"({"nodeLabels": {"pool": "a"}})")}).ok());
  Json tas = Flavor(R"({"topologyName": "default"})");
  tas["metadata"] = {{"name", "tas-flavor"}};
  const Status by_flavor = TopologyRefusal(plain, {tas});
  EXPECT_EQ(by_flavor.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(by_flavor.message().find("ResourceFlavor tas-flavor has topology default"),
            std::string::npos)
      << by_flavor.message();
  WorkloadState assigned;
  assigned.topology_assigned = true;
  EXPECT_NE(TopologyRefusal(assigned, {}).message().find("topologyAssignment"), std::string::npos);
  const Json wl = Json::parse(R"({"metadata": {"name": "w"}, "status": {"admission": {
    "clusterQueue": "cq", "podSetAssignments": [{"name": "ranks", "count": 1,
    "topologyAssignment": {"levels": ["rack"], "slices": []}}]}}})");
  EXPECT_TRUE(WorkloadStateFromJson(wl).topology_assigned);
}

}  // namespace
}  // namespace petname::api
