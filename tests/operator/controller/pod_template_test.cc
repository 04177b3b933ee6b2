#include "operator/jobs/pod_template.h"

#include <gtest/gtest.h>

#include "operator/jobs/desired.h"
#include "operator/jobs/rank_pod.h"
#include "operator/kube/object.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// A job with `tmpl` as spec.template (and `extra` merged into the spec).
api::Job TemplateJob(const std::string& tmpl, const std::string& extra = "{}") {
  Json patch = {{"spec", Json::parse(extra)}};
  patch["spec"]["template"] = Json::parse(tmpl);
  return TestJob(2, patch.dump());
}

std::vector<std::string> Names(const Json& list) {
  std::vector<std::string> out;
  for (const Json& item : list) out.push_back(item["name"]);
  return out;
}

// Merges into rank 0's pod as the operator renders it without a template.
std::vector<std::string> Merge(const api::Job& job, Json* pod) {
  api::Job plain = job;
  plain.spec.pod_template = api::PodTemplate();
  *pod = Desired(plain).pods[0];
  return MergePodTemplate(job.spec.pod_template, pod);
}

bool Mentions(const std::vector<std::string>& conflicts, const std::string& text) {
  for (const std::string& c : conflicts) {
    if (c.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(PodTemplateTest, SidecarServiceAccountSecurityContextAndVolume) {
  const api::Job job = TemplateJob(R"({
    "metadata": {"labels": {"team": "pets"}, "annotations": {"note": "hi"}},
    "spec": {"serviceAccountName": "trainer", "automountServiceAccountToken": false,
      "securityContext": {"runAsNonRoot": true, "runAsUser": 65532, "fsGroup": 65532},
      "volumes": [{"name": "scratch", "emptyDir": {}}],
      "initContainers": [{"name": "fetch", "image": "busybox"}],
      "containers": [{"name": "uploader", "image": "up:1", "ports": [{"containerPort": 8000}],
        "volumeMounts": [{"name": "checkpoints", "mountPath": "/ck"},
                         {"name": "scratch", "mountPath": "/scratch"}]}],
      "imagePullSecrets": [{"name": "registry"}], "runtimeClassName": "runc",
      "nodeSelector": {"pool": "training"}, "tolerations": [{"operator": "Exists"}],
      "affinity": {"nodeAffinity": {}}, "priorityClassName": "high"}})");
  Json pod;
  EXPECT_TRUE(Merge(job, &pod).empty());
  const Json& spec = pod["spec"];
  EXPECT_EQ(Names(spec["containers"]), (std::vector<std::string>{"trainer", "uploader"}));
  EXPECT_EQ(spec["containers"][1]["volumeMounts"][0]["name"], "checkpoints");
  EXPECT_EQ(Names(spec["initContainers"]), std::vector<std::string>{"fetch"});
  EXPECT_EQ(Names(spec["volumes"]), (std::vector<std::string>{"checkpoints", "shm", "scratch"}));
  EXPECT_EQ(spec["serviceAccountName"], "trainer");
  EXPECT_EQ(spec["automountServiceAccountToken"], false);
  EXPECT_EQ(spec["securityContext"]["runAsUser"], 65532);
  EXPECT_EQ(spec["imagePullSecrets"][0]["name"], "registry");
  EXPECT_EQ(spec["runtimeClassName"], "runc");
  EXPECT_EQ(spec["nodeSelector"]["pool"], "training");
  EXPECT_EQ(spec["tolerations"][0]["operator"], "Exists");
  EXPECT_TRUE(spec["affinity"].contains("nodeAffinity"));
  EXPECT_EQ(spec["priorityClassName"], "high");
  // The operator's own fields are all still there.
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["hostname"], "rex-rank-0");
  EXPECT_EQ(spec["containers"][0]["image"], "petname:1");
  EXPECT_EQ(kube::Label(pod, "petname.dev/job-name"), "rex");
  EXPECT_EQ(kube::Label(pod, "team"), "pets");
  EXPECT_EQ(pod["metadata"]["annotations"]["note"], "hi");
}

TEST(PodTemplateTest, RankPodsMountNoServiceAccountTokenUnlessTheTemplateAsks) {
  for (const Json& pod : Desired(TestJob(2)).pods) {
    EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], false);
  }
  const api::Job job = TemplateJob(
      R"({"spec": {"serviceAccountName": "uploader", "automountServiceAccountToken": true}})");
  EXPECT_TRUE(CheckPodTemplate(job).ok());
  for (const Json& pod : Desired(job).pods) {
    EXPECT_EQ(pod["spec"]["automountServiceAccountToken"], true);
    EXPECT_EQ(pod["spec"]["serviceAccountName"], "uploader");
  }
}

TEST(PodTemplateTest, DesiredPodsCarryTheTemplateAndTheGang) {
  const api::Job job = TemplateJob(
      R"({"metadata": {"labels": {"team": "pets"}}, "spec": {"schedulerName": "custom",
          "containers": [{"name": "side", "image": "s:1"}]}})",
      R"({"scheduling": {"gang": {"enabled": true}}})");
  EXPECT_TRUE(CheckPodTemplate(job).ok());
  const DesiredState d = Desired(job);
  ASSERT_EQ(d.pods.size(), 2u);
  for (const Json& pod : d.pods) {
    EXPECT_EQ(Names(pod["spec"]["containers"]), (std::vector<std::string>{"trainer", "side"}));
    EXPECT_EQ(kube::Label(pod, "team"), "pets");
    EXPECT_EQ(kube::Label(pod, "scheduling.x-k8s.io/pod-group"), "rex");
    EXPECT_EQ(pod["spec"]["schedulerName"], "custom");  // the gang's default does not override
  }
  EXPECT_EQ(kube::Label(d.pods[1], "petname.dev/rank"), "1");
}

TEST(PodTemplateTest, OperatorFieldsWinAndEachConflictIsNamed) {
  const api::Job job = TemplateJob(
      R"({"metadata": {"labels": {"petname.dev/rank": "9", "app.kubernetes.io/name": "x",
            "flat": "b", "ok": "yes"},
          "annotations": {"scheduling.k8s.io/group-name": "g"}},
        "spec": {"restartPolicy": "Always", "hostname": "h", "nodeSelector": {"a": "b"},
          "containers": [{"name": "trainer", "image": "evil"},
                         {"name": "side", "ports": [{"containerPort": 9400}]},
                         {"name": "rdv", "ports": [{"containerPort": 29500}]},
                         {"name": "fine", "ports": [{"containerPort": 8000}]}],
          "initContainers": [{"name": "trainer"}],
          "volumes": [{"name": "checkpoints", "emptyDir": {}}, {"name": "dataset"},
                      {"name": "shm"}, {"name": "mine"}]}})",
      R"({"labels": {"flat": "a"}, "scheduling": {"nodeSelector": {"c": "d"}},
          "dataset": {"path": "/d/x.csv", "volume": {"hostPath": "/srv"}}})");
  Json pod;
  const std::vector<std::string> conflicts = Merge(job, &pod);
  EXPECT_EQ(conflicts.size(), 14u);
  for (const char* text :
       {R"(labels: "petname.dev/rank" is reserved)", R"(labels: "app.kubernetes.io/name" is)",
        R"(labels: "flat" is already set)", R"(annotations: "scheduling.k8s.io/group-name")",
        "spec.template.spec.restartPolicy is set by the operator",
        "spec.template.spec.hostname is set by the operator",
        "spec.template.spec.nodeSelector is also set by spec.scheduling.nodeSelector",
        R"(containers["trainer"].image is the operator's)",
        R"(spec.template.spec.initContainers: "trainer")",
        R"(containers["side"]: containerPort 9400 is a port of the trainer)",
        R"(containers["rdv"]: containerPort 29500)", R"(volumes: "checkpoints" is the name)",
        R"(volumes: "dataset")", R"(volumes: "shm")"}) {
    EXPECT_TRUE(Mentions(conflicts, text)) << text;
  }
  // The operator's values stay; the rest of the template is merged.
  const Json& spec = pod["spec"];
  EXPECT_EQ(kube::Label(pod, "petname.dev/rank"), "0");
  EXPECT_EQ(kube::Label(pod, "app.kubernetes.io/name"), "petname");
  EXPECT_EQ(kube::Label(pod, "flat"), "a");
  EXPECT_EQ(kube::Label(pod, "ok"), "yes");
  EXPECT_EQ(spec["restartPolicy"], "Never");
  EXPECT_EQ(spec["hostname"], "rex-rank-0");
  EXPECT_EQ(spec["nodeSelector"], (Json{{"c", "d"}}));
  EXPECT_EQ(Names(spec["containers"]), (std::vector<std::string>{"trainer", "fine"}));
  EXPECT_EQ(spec["containers"][0]["image"], "petname:1");
  EXPECT_FALSE(spec.contains("initContainers"));
  EXPECT_EQ(Names(spec["volumes"]),
            (std::vector<std::string>{"checkpoints", "dataset", "shm", "mine"}));
  EXPECT_TRUE(spec["volumes"][1].contains("hostPath"));
}

TEST(PodTemplateTest, SidecarPortsAreCheckedAgainstEveryLocalRanksMetricsPort) {
  const std::string side = R"({"spec": {"containers": [{"name": "side",
      "ports": [{"containerPort": 9401}]}]}})";
  EXPECT_TRUE(CheckPodTemplate(TemplateJob(side)).ok());
  const Status s =
      CheckPodTemplate(TemplateJob(side, R"({"resources": {"processesPerReplica": 2}})"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("spec.template sets what the operator owns: "
                             "spec.template.spec.containers[\"side\"]: containerPort 9401"),
            std::string::npos)
      << s.message();
}

TEST(PodTemplateTest, CheckListsEveryConflict) {
  const Status s = CheckPodTemplate(
      TemplateJob(R"({"spec": {"subdomain": "x", "volumes": [{"name": "checkpoints"}]}})"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("subdomain is set by the operator"), std::string::npos);
  EXPECT_NE(s.message().find("; spec.template.spec.volumes: \"checkpoints\""), std::string::npos)
      << s.message();
  EXPECT_TRUE(CheckPodTemplate(TestJob(1)).ok());
}

// The template's "trainer" entry adds env (valueFrom too), envFrom and volumeMounts to the
// operator's trainer container, after the operator's own entries.
TEST(PodTemplateTest, TheTemplateExtendsTheTrainerContainer) {
  const api::Job job = TemplateJob(R"({"spec": {
      "volumes": [{"name": "rdma", "hostPath": {"path": "/dev/infiniband"}}],
      "containers": [{"name": "trainer",
        "env": [{"name": "NCCL_DEBUG", "value": "INFO"},
                {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
        "envFrom": [{"configMapRef": {"name": "nccl"}}, {"secretRef": {"name": "creds"}}],
        "volumeMounts": [{"name": "rdma", "mountPath": "/dev/infiniband"},
                         {"name": "checkpoints", "mountPath": "/ck-copy", "readOnly": true}]}]}})");
  Json pod;
  EXPECT_TRUE(Merge(job, &pod).empty());
  EXPECT_TRUE(CheckPodTemplate(job).ok());
  const Json& spec = pod["spec"];
  ASSERT_EQ(Names(spec["containers"]), std::vector<std::string>{"trainer"});
  const Json& trainer = spec["containers"][0];
  const Json& env = trainer["env"];
  EXPECT_EQ(env[env.size() - 2]["name"], "NCCL_DEBUG");
  EXPECT_EQ(env.back()["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
  EXPECT_EQ(env[0]["name"], "MASTER_ADDR");  // the operator's entries come first
  EXPECT_EQ(
      trainer["envFrom"],
      Json::parse(R"([{"configMapRef": {"name": "nccl"}}, {"secretRef": {"name": "creds"}}])"));
  EXPECT_EQ(Names(trainer["volumeMounts"]),
            (std::vector<std::string>{"checkpoints", "shm", "rdma", "checkpoints"}));
  EXPECT_EQ(trainer["image"], "petname:1");
  EXPECT_EQ(Names(spec["volumes"]), (std::vector<std::string>{"checkpoints", "shm", "rdma"}));
}

// What the operator sets on the trainer container cannot be overridden by the template: its
// env names (fixed ones, PET_*/PETNAME_*, spec.env's), its mount paths (and paths under them)
// and every field but env, envFrom and volumeMounts. Each is named; the rest is merged.
TEST(PodTemplateTest, TheTemplateCannotOverrideTheTrainersOwnFields) {
  const api::Job job = TemplateJob(
      R"({"spec": {"containers": [{"name": "trainer", "command": ["sh"],
          "resources": {"limits": {"cpu": "9"}},
          "env": [{"name": "MASTER_ADDR", "value": "evil"}, {"name": "RANK", "value": "3"},
                  {"name": "PETNAME_JOB_UID", "value": "x"}, {"name": "PET_FOO", "value": "x"},
                  {"name": "HTTPS_PROXY", "value": "x"}, {"name": "NCCL_DEBUG", "value": "WARN"}],
          "volumeMounts": [{"name": "a", "mountPath": "/dev/shm"},
                           {"name": "b", "mountPath": "/checkpoints/rex"},
                           {"name": "c", "mountPath": "/pets/"},
                           {"name": "d", "mountPath": "/dev/termination-log"},
                           {"name": "e", "mountPath": "/checkpoints2"}]}]}})",
      R"({"env": [{"name": "HTTPS_PROXY", "value": "http://proxy"}],
          "dataset": {"path": "/pets/x.csv", "volume": {"hostPath": "/srv", "mountPath": "/pets"}}})");
  Json pod;
  const std::vector<std::string> conflicts = Merge(job, &pod);
  EXPECT_EQ(conflicts.size(), 11u);
  for (const char* text :
       {R"(containers["trainer"].command is the operator's)",
        R"(containers["trainer"].resources is the operator's)",
        R"(env: "MASTER_ADDR" is set by the operator)", R"(env: "RANK")",
        R"(env: "PETNAME_JOB_UID")", R"(env: "PET_FOO")", R"(env: "HTTPS_PROXY")",
        R"(mountPath "/dev/shm" is, or lies under, "/dev/shm")",
        R"(mountPath "/checkpoints/rex" is, or lies under, "/checkpoints")",
        R"(mountPath "/pets/" is, or lies under, "/pets")",
        R"(mountPath "/dev/termination-log")"}) {
    EXPECT_TRUE(Mentions(conflicts, text)) << text;
  }
  const Json& trainer = pod["spec"]["containers"][0];
  EXPECT_EQ(trainer["command"], Json::array({"petname"}));
  EXPECT_EQ(trainer["env"].back()["name"], "NCCL_DEBUG");
  EXPECT_EQ(trainer["volumeMounts"].back()["mountPath"], "/checkpoints2");
  const Status s = CheckPodTemplate(job);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("spec.template sets what the operator owns: "), std::string::npos);
}

TEST(PodTemplateTest, AnEmptyTemplateChangesNothing) {
  const api::Job job = TemplateJob(R"({"metadata": {}, "spec": {}})");
  Json pod;
  EXPECT_TRUE(Merge(job, &pod).empty());
  EXPECT_EQ(pod, Desired(TestJob(2)).pods[0]);
}

}  // namespace
}  // namespace petname::controller
