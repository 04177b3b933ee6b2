#include "operator/jobs/cache_shape.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "operator/api/pod.h"
#include "operator/jobs/desired.h"
#include "operator/jobs/rank_pod.h"
#include "operator/kube/object.h"
#include "tests/operator/controller/test_job.h"
#include "tests/support/test_paths.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// Every field of an ObservedPod, as one string.
std::string Describe(const api::ObservedPod& p) {
  std::ostringstream out;
  out << p.name << '|' << p.rank << '|' << p.restart_generation << '|' << p.deleting << '|'
      << p.deletion_time.value_or(-1) << '|' << p.phase << '|' << p.reason << '|' << p.message
      << '|' << p.pod_ip << '|' << p.creation_time.value_or(-1) << '|';
  for (const api::PodCondition& c : p.conditions) {
    out << c.type << ',' << c.status << ',' << c.reason << ',' << c.message << ','
        << c.last_transition_time.value_or(-1) << ';';
  }
  for (const auto& t : {p.trainer_terminated, p.init_failed}) {
    if (t) out << t->exit_code << ',' << t->reason << ',' << t->message;
    out << '|';
  }
  out << p.init_failed_name << '|';
  for (const api::WaitingContainer& w : p.waiting) {
    out << w.name << ',' << w.image << ',' << w.init << ',' << w.reason << ',' << w.message << ';';
  }
  return out.str();
}

// Rank 1 of the test job as the operator creates it, as the API server then shows it.
Json ServedPod() {
  api::Job job = TestJob(2, R"({"spec": {"labels": {"team": "pets"},
    "annotations": {"note": "kept on the pod, not in the cache"}}})");
  Json pod = RankPod(job, 1);
  pod["metadata"]["uid"] = "pod-uid";
  pod["metadata"]["resourceVersion"] = "42";
  pod["metadata"]["creationTimestamp"] = "2026-11-23T09:00:00Z";
  pod["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z";
  pod["metadata"]["managedFields"] = Json::array({{{"manager", "petname-operator"}}});
  pod["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  pod["metadata"]["ownerReferences"].push_back(
      {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "extra"}, {"uid", "cm-uid"}});
  pod["status"] = Json::parse(R"({"phase": "Failed", "reason": "Evicted", "message": "memory",
    "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}], "hostIP": "192.168.0.1",
    "qosClass": "Burstable", "startTime": "2026-11-23T09:00:01Z",
    "conditions": [{"type": "Ready", "status": "False", "reason": "PodFailed", "message": "m",
                    "lastTransitionTime": "2026-11-23T09:30:00Z", "lastProbeTime": null}],
    "initContainerStatuses": [{"name": "fetch-data", "image": "petname:1", "imageID": "sha",
      "ready": false, "restartCount": 0,
      "state": {"terminated": {"exitCode": 3, "reason": "Error", "message": "bad checksum"}}}],
    "containerStatuses": [
      {"name": "sidecar", "image": "busybox", "state": {"waiting": {"reason": "ErrImagePull",
        "message": "no such image"}}, "containerID": "cri://1", "volumeMounts": []},
      {"name": "trainer", "image": "petname:1", "state": {"running": {}},
       "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}},
       "allocatedResources": {"cpu": "1"}}]})");
  return pod;
}

TEST(CacheShapeTest, APodOfTheJobKeepsEverythingTheOperatorReadsAndNothingElse) {
  const Json served = ServedPod();
  Json pod = served;
  ASSERT_TRUE(ShapeJobObject(JobObject::kPod, &pod));
  EXPECT_EQ(Describe(api::PodFromJson(pod)), Describe(api::PodFromJson(served)));
  EXPECT_TRUE(kube::IsControlledBy(pod, "job-uid"));
  EXPECT_EQ(kube::ResourceVersion(pod), "42");
  EXPECT_EQ(kube::Uid(pod), "pod-uid");
  EXPECT_FALSE(pod.contains("spec"));
  const Json& meta = pod["metadata"];
  EXPECT_FALSE(meta.contains("annotations"));
  EXPECT_FALSE(meta.contains("managedFields"));
  EXPECT_FALSE(meta.contains("finalizers"));
  EXPECT_EQ(meta["ownerReferences"].size(), 1u);
  EXPECT_EQ(meta["labels"], Json::parse(R"({"app.kubernetes.io/name": "petname",
    "petname.dev/job-name": "rex", "petname.dev/rank": "1",
    "petname.dev/restart-generation": "0"})"));
  for (const char* dropped : {"podIPs", "hostIP", "qosClass", "startTime"}) {
    EXPECT_FALSE(pod["status"].contains(dropped)) << dropped;
  }
  EXPECT_FALSE(pod["status"]["containerStatuses"][1].contains("allocatedResources"));
  EXPECT_LT(pod.dump().size(), served.dump().size() / 2);
}

TEST(CacheShapeTest, ObjectsTheOperatorDidNotMakeForTheJobAreNotCached) {
  const Json served = ServedPod();
  auto kept = [](JobObject kind, Json obj) { return ShapeJobObject(kind, &obj); };
  Json no_owner = served;
  no_owner["metadata"].erase("ownerReferences");
  EXPECT_FALSE(kept(JobObject::kPod, no_owner));
  Json other_kind = served;
  other_kind["metadata"]["ownerReferences"][0]["kind"] = "ReplicaSet";
  EXPECT_FALSE(kept(JobObject::kPod, other_kind));
  Json other_group = served;
  other_group["metadata"]["ownerReferences"][0]["apiVersion"] = "example.com/v1";
  EXPECT_FALSE(kept(JobObject::kPod, other_group));
  Json other_job = served;  // owned by rex, labelled as max's
  other_job["metadata"]["labels"]["petname.dev/job-name"] = "max";
  EXPECT_FALSE(kept(JobObject::kPod, other_job));
  Json not_controller = served;
  not_controller["metadata"]["ownerReferences"][0]["controller"] = false;
  EXPECT_FALSE(kept(JobObject::kPod, not_controller));
  for (const char* name :
       {"stray", "rex-rank-1024", "rex-rank-01", "rex-rank-", "max-rank-0", "rex-rank-1-x"}) {
    Json renamed = served;
    renamed["metadata"]["name"] = name;
    EXPECT_FALSE(kept(JobObject::kPod, renamed)) << name;
  }
  Json last = served;
  last["metadata"]["name"] = "rex-rank-1023";
  EXPECT_TRUE(kept(JobObject::kPod, last));
  EXPECT_FALSE(kept(JobObject::kPod, Json::array()));
}

TEST(CacheShapeTest, ServicesAndPoliciesKeepTheirMetadataUnderTheJobsNameOnly) {
  api::Job job = TestJob(1);
  DesiredState d = Desired(job, PodAction::kRun, NetworkPolicyOptions{true, Json::array()});
  ASSERT_EQ(d.services.size(), 1u);
  ASSERT_EQ(d.network_policies.size(), 1u);
  for (auto [kind, obj] : {std::pair{JobObject::kService, d.services[0]},
                           std::pair{JobObject::kNetworkPolicy, d.network_policies[0]}}) {
    obj["metadata"]["annotations"] = {{"bulk", std::string(4096, 'x')}};
    obj["metadata"]["labels"]["team"] = "pets";
    obj["status"] = {{"loadBalancer", Json::object()}};
    Json renamed = obj;
    renamed["metadata"]["name"] = "rex-2";
    EXPECT_FALSE(ShapeJobObject(kind, &renamed));
    ASSERT_TRUE(ShapeJobObject(kind, &obj));
    EXPECT_EQ(obj["metadata"]["name"], "rex");
    EXPECT_TRUE(kube::IsControlledBy(obj, "job-uid"));
    EXPECT_FALSE(obj.contains("spec"));
    EXPECT_FALSE(obj.contains("status"));
    EXPECT_FALSE(obj["metadata"].contains("annotations"));
    EXPECT_EQ(kube::Label(obj, "team"), "");
    EXPECT_EQ(kube::Label(obj, api::kJobNameLabel), "rex");
  }
}

TEST(CacheShapeTest, WorkloadsOfTheJobAreKeptWhole) {
  Json wl = {{"metadata",
              {{"name", "pntj-rex"},
               {"labels", {{api::kJobNameLabel, "rex"}}},
               {"annotations", {{"a", "b"}}},
               {"ownerReferences",
                {{{"apiVersion", api::kApiVersion},
                  {"kind", api::kKind},
                  {"name", "rex"},
                  {"uid", "job-uid"},
                  {"controller", true}}}}}},
             {"spec", {{"queueName", "q"}}}};
  Json shaped = wl;
  ASSERT_TRUE(ShapeJobObject(JobObject::kWorkload, &shaped));
  EXPECT_EQ(shaped, wl);
  wl["metadata"]["ownerReferences"][0]["name"] = "max";
  EXPECT_FALSE(ShapeJobObject(JobObject::kWorkload, &wl));
}

TEST(CacheShapeTest, JobsLoseTheirAnnotationsAndAJobTooLargeIsKeptAsItsIdentity) {
  Json job = TestJob(1).object;
  job["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/last-applied-configuration", job.dump()}};
  job["status"] = {{"phase", "Running"}};
  Json small = job;
  ASSERT_TRUE(ShapeJob(&small));
  EXPECT_FALSE(small["metadata"].contains("annotations"));
  Json provisioned = job;  // what its Workload copies stays
  provisioned["metadata"]["annotations"]["provreq.kueue.x-k8s.io/maxRunDurationSeconds"] = "60";
  ASSERT_TRUE(ShapeJob(&provisioned));
  EXPECT_EQ(provisioned["metadata"]["annotations"],
            Json({{"provreq.kueue.x-k8s.io/maxRunDurationSeconds", "60"}}));
  EXPECT_EQ(small["spec"], job["spec"]);
  EXPECT_EQ(TooLargeBytes(small), 0);

  Json big = job;
  big["spec"]["template"]["metadata"]["annotations"]["bulk"] =
      std::string(kMaxCachedObjectBytes, 'x');
  const auto bytes = static_cast<int64_t>(big.dump().size());
  ASSERT_TRUE(ShapeJob(&big));
  EXPECT_GT(TooLargeBytes(big), kMaxCachedObjectBytes);
  EXPECT_LT(TooLargeBytes(big), bytes);  // the annotations did not count
  EXPECT_FALSE(big.contains("spec"));
  EXPECT_EQ(big["status"], job["status"]);
  EXPECT_EQ(kube::Key(big), "ml/rex");
  EXPECT_EQ(kube::Uid(big), "job-uid");
  EXPECT_EQ(big["kind"], api::kKind);
  EXPECT_LT(big.dump().size(), 1024u);
  const std::string message = TooLargeMessage("the job", TooLargeBytes(big));
  EXPECT_NE(message.find(std::to_string(TooLargeBytes(big))), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(kMaxCachedObjectBytes)), std::string::npos) << message;

  Json bulky_status = job;  // the status goes too when it is the bulk
  bulky_status["status"]["message"] = std::string(kMaxCachedObjectBytes, 'x');
  ASSERT_TRUE(ShapeSweep(&bulky_status));
  EXPECT_GT(TooLargeBytes(bulky_status), 0);
  EXPECT_FALSE(bulky_status.contains("status"));
}

TEST(CacheShapeTest, TrialJobsOfASweepKeepWhatTheSweepReads) {
  Json trial = TestJob(1, R"({"metadata": {"labels": {"petname.dev/sweep-name": "lr",
    "petname.dev/trial-index": "3", "team": "pets"}, "annotations": {"a": "b"},
    "ownerReferences": [{"apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingSweep",
      "name": "lr", "uid": "sweep-uid", "controller": true}]},
    "spec": {"runPolicy": {"suspend": true}}, "status": {"phase": "Running"}})")
                   .object;
  Json shaped = trial;
  ASSERT_TRUE(ShapeTrialJob(&shaped));
  EXPECT_EQ(shaped["spec"], Json::parse(R"({"runPolicy": {"suspend": true}})"));
  EXPECT_EQ(shaped["status"], trial["status"]);
  EXPECT_EQ(kube::Label(shaped, "petname.dev/trial-index"), "3");
  EXPECT_EQ(kube::Label(shaped, "team"), "");
  EXPECT_TRUE(kube::IsControlledBy(shaped, "sweep-uid"));
  EXPECT_FALSE(shaped["metadata"].contains("annotations"));

  Json unsuspended = trial;
  unsuspended["spec"].erase("runPolicy");
  ASSERT_TRUE(ShapeTrialJob(&unsuspended));
  EXPECT_FALSE(unsuspended.contains("spec"));

  Json posing = trial;  // labelled as lr's trial, but not made by it
  posing["metadata"].erase("ownerReferences");
  EXPECT_FALSE(ShapeTrialJob(&posing));
  Json other = trial;
  other["metadata"]["labels"]["petname.dev/sweep-name"] = "other";
  EXPECT_FALSE(ShapeTrialJob(&other));
}

TEST(CacheShapeTest, TheRankBoundIsTheCrdsMaximumOfReplicas) {
  const YAML::Node crd = YAML::LoadFile(testing::JobCrd());
  const YAML::Node replicas = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
                                 ["spec"]["properties"]["replicas"];
  ASSERT_TRUE(replicas["maximum"]) << "spec.replicas has no maximum";
  EXPECT_EQ(replicas["maximum"].as<int>(), kMaxReplicas);
}

}  // namespace
}  // namespace petname::controller
