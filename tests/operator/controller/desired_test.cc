#include "operator/jobs/desired.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "operator/jobs/gang.h"
#include "operator/jobs/rendezvous_secret.h"
#include "operator/kube/object.h"
#include "tests/operator/controller/test_job.h"

namespace petname::controller {
namespace {

std::string EnvValue(const Json& pod, const std::string& name) {
  for (const Json& e : pod["spec"]["containers"][0]["env"]) {
    if (e["name"] == name) return e["value"];
  }
  return "<unset>";
}

std::vector<std::string> Args(const Json& pod) { return pod["spec"]["containers"][0]["args"]; }

// The value after `flag` in the pod's args.
std::string Flag(const Json& pod, const std::string& flag) {
  const std::vector<std::string> args = Args(pod);
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) return args[i + 1];
  }
  return "<missing>";
}

// "name=port" of each container port, in order.
std::vector<std::string> Ports(const Json& pod) {
  std::vector<std::string> out;
  for (const Json& p : pod["spec"]["containers"][0]["ports"]) {
    out.push_back(p["name"].get<std::string>() + "=" +
                  std::to_string(p["containerPort"].get<int>()));
  }
  return out;
}

TEST(DesiredTest, OneHeadlessServiceAndOnePodPerRank) {
  DesiredState d = Desired(TestJob(3));
  ASSERT_EQ(d.services.size(), 1u);
  const Json& svc = d.services[0];
  EXPECT_EQ(kube::Name(svc), "rex");
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["publishNotReadyAddresses"], true);
  EXPECT_EQ(svc["spec"]["selector"]["petname.dev/job-name"], "rex");
  ASSERT_EQ(d.pods.size(), 3u);
  for (int rank = 0; rank < 3; ++rank) {
    const Json& pod = d.pods[rank];
    EXPECT_EQ(kube::Name(pod), "rex-rank-" + std::to_string(rank));
    EXPECT_EQ(kube::Namespace(pod), "ml");
    EXPECT_EQ(pod["spec"]["hostname"], "rex-rank-" + std::to_string(rank));
    EXPECT_EQ(pod["spec"]["subdomain"], "rex");
    EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
    EXPECT_EQ(kube::Label(pod, "app.kubernetes.io/name"), "petname");
    EXPECT_EQ(kube::Label(pod, "petname.dev/job-name"), "rex");
    EXPECT_EQ(kube::Label(pod, "petname.dev/rank"), std::to_string(rank));
    EXPECT_TRUE(kube::IsControlledBy(pod, "job-uid"));
    EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "PetNameTrainingJob");
    EXPECT_EQ(EnvValue(pod, "MASTER_ADDR"), "rex-rank-0.rex.ml.svc");
    EXPECT_EQ(EnvValue(pod, "MASTER_PORT"), "29500");
    EXPECT_EQ(EnvValue(pod, "WORLD_SIZE"), "3");
    EXPECT_EQ(EnvValue(pod, "RANK"), std::to_string(rank));
    EXPECT_EQ(EnvValue(pod, "PET_RANK"), std::to_string(rank));
    EXPECT_EQ(EnvValue(pod, "LOCAL_RANK"), "0");
    EXPECT_EQ(EnvValue(pod, "PET_WORLD_SIZE"), "3");
    EXPECT_EQ(EnvValue(pod, "PET_NNODES"), "3");
    EXPECT_EQ(EnvValue(pod, "PET_NPROC_PER_NODE"), "1");
    EXPECT_EQ(EnvValue(pod, "PET_NODE_RANK"), std::to_string(rank));
    EXPECT_EQ(Args(pod)[0], "train");
    EXPECT_EQ(Flag(pod, "--nproc"), "<missing>");
    EXPECT_EQ(Ports(pod), (std::vector<std::string>{"metrics=9400", "rendezvous=29500"}));
    EXPECT_EQ(EnvValue(pod, "PETNAME_JOB_NAME"), "rex");
    EXPECT_EQ(EnvValue(pod, "PETNAME_NAMESPACE"), "ml");
    EXPECT_EQ(pod["spec"]["containers"][0]["terminationMessagePolicy"], "FallbackToLogsOnError");
  }
  EXPECT_TRUE(kube::IsControlledBy(svc, "job-uid"));
}

TEST(DesiredTest, TrainerContainerMeetsTheRestrictedPodSecurityStandard) {
  for (const Json& pod : Desired(TestJob(2)).pods) {
    const Json& sc = pod["spec"]["containers"][0]["securityContext"];
    EXPECT_EQ(sc["allowPrivilegeEscalation"], false);
    EXPECT_EQ(sc["capabilities"]["drop"], Json::array({"ALL"}));
    EXPECT_EQ(sc["runAsNonRoot"], true);
    EXPECT_EQ(sc["seccompProfile"]["type"], "RuntimeDefault");
    EXPECT_EQ(sc["readOnlyRootFilesystem"], true);
    EXPECT_FALSE(sc.contains("privileged"));
  }
}

TEST(DesiredTest, TrainingSettingsBecomeArgs) {
  api::Job job = TestJob(1, R"({"spec": {"training": {"epochs": 3, "learningRate": 0.5,
    "batchSizePerReplica": 64}, "resources": {"gpusPerReplica": 1}, "metrics": {"port": 9100}}})");
  const Json pod = Desired(job).pods[0];
  EXPECT_EQ(Args(pod)[0], "train");
  EXPECT_EQ(Flag(pod, "--data"), "/data/pets.csv");
  EXPECT_EQ(Flag(pod, "--epochs"), "3");
  EXPECT_EQ(Flag(pod, "--lr"), "0.5");
  EXPECT_EQ(Flag(pod, "--batch-size"), "64");
  EXPECT_EQ(Flag(pod, "--metrics-port"), "9100");
  EXPECT_EQ(Flag(pod, "--device"), "cuda");
  EXPECT_EQ(Flag(pod, "--nproc"), "<missing>");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(Ports(pod), (std::vector<std::string>{"metrics=9100", "rendezvous=29500"}));
  EXPECT_EQ(Flag(pod, "--warmup-steps"), "0");
  EXPECT_EQ(Flag(pod, "--lr-schedule"), "constant");
  EXPECT_EQ(Flag(pod, "--goal"), "<missing>");
  const std::vector<std::string> args = Args(pod);
  EXPECT_EQ(std::find(args.begin(), args.end(), "--deterministic"), args.end());
}

TEST(DesiredTest, TheGoalAndScheduleBecomeArgs) {
  api::Job job = TestJob(1, R"({"spec": {"training": {"warmupSteps": 50, "lrSchedule": "cosine",
    "deterministic": true, "goal": {"metric": "validationLoss", "value": 1.5, "stop": true}}}})");
  const Json pod = Desired(job).pods[0];
  EXPECT_EQ(Flag(pod, "--warmup-steps"), "50");
  EXPECT_EQ(Flag(pod, "--lr-schedule"), "cosine");
  EXPECT_EQ(Flag(pod, "--goal"), "validationLoss=1.5");
  const std::vector<std::string> args = Args(pod);
  EXPECT_NE(std::find(args.begin(), args.end(), "--stop-at-goal"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--deterministic"), args.end());
}

TEST(DesiredTest, SeveralProcessesPerPod) {
  api::Job job = TestJob(2, R"({"spec": {"resources": {"processesPerReplica": 3},
    "training": {"batchSizePerReplica": 64}, "masterPort": 23456}})");
  const DesiredState d = Desired(job);
  ASSERT_EQ(d.pods.size(), 2u);
  for (int index = 0; index < 2; ++index) {
    const Json& pod = d.pods[index];
    EXPECT_EQ(kube::Label(pod, "petname.dev/rank"), std::to_string(index));
    const std::vector<std::string> args = Args(pod);
    ASSERT_GE(args.size(), 3u);
    EXPECT_EQ((std::vector<std::string>{args[0], args[1], args[2]}),
              (std::vector<std::string>{"train", "--nproc", "3"}));
    EXPECT_EQ(Flag(pod, "--batch-size"), "64");  // per process
    EXPECT_EQ(Flag(pod, "--device"), "<missing>");
    for (const char* name : {"MASTER_ADDR", "PET_MASTER_ADDR"}) {
      EXPECT_EQ(EnvValue(pod, name), "rex-rank-0.rex.ml.svc");
    }
    for (const char* name : {"MASTER_PORT", "PET_MASTER_PORT"})
      EXPECT_EQ(EnvValue(pod, name), "23456");
    for (const char* name : {"WORLD_SIZE", "PET_WORLD_SIZE"}) EXPECT_EQ(EnvValue(pod, name), "6");
    EXPECT_EQ(EnvValue(pod, "PET_NNODES"), "2");
    EXPECT_EQ(EnvValue(pod, "PET_NPROC_PER_NODE"), "3");
    EXPECT_EQ(EnvValue(pod, "PET_NODE_RANK"), std::to_string(index));
    for (const char* name : {"RANK", "LOCAL_RANK", "PET_RANK", "PET_LOCAL_RANK"}) {
      EXPECT_EQ(EnvValue(pod, name), "<unset>") << name;  // the launcher sets them per process
    }
    EXPECT_EQ(Ports(pod), (std::vector<std::string>{"metrics=9400", "metrics-1=9401",
                                                    "metrics-2=9402", "rendezvous=23456"}));
    EXPECT_FALSE(pod["spec"]["containers"][0]["resources"].contains("limits"));
  }
}

TEST(DesiredTest, OneProcessPerGpu) {
  api::Job job = TestJob(3, R"({"spec": {"resources": {"gpusPerReplica": 4}}})");
  const Json pod = Desired(job).pods[2];
  EXPECT_EQ(Flag(pod, "--nproc"), "4");
  EXPECT_EQ(Flag(pod, "--device"), "cuda");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "4");
  EXPECT_EQ(EnvValue(pod, "WORLD_SIZE"), "12");
  EXPECT_EQ(EnvValue(pod, "PET_NPROC_PER_NODE"), "4");
  EXPECT_EQ(EnvValue(pod, "PET_NODE_RANK"), "2");
  EXPECT_EQ(EnvValue(pod, "PETNAME_BACKEND"), "nccl");
  EXPECT_EQ(Ports(pod).size(), 5u);  // metrics, metrics-1..3, rendezvous
}

// Every rank pod mounts a memory-backed /dev/shm: 1Gi per process unless
// resources.sharedMemory says otherwise.
TEST(DesiredTest, SharedMemoryPerProcess) {
  const Json volume = Json::parse(R"({"name": "shm", "emptyDir": {"medium": "Memory",
    "sizeLimit": "1Gi"}})");
  const Json mount = Json::parse(R"({"name": "shm", "mountPath": "/dev/shm"})");
  Json pod = Desired(TestJob(1)).pods[0];
  EXPECT_EQ(pod["spec"]["volumes"][1], volume);
  EXPECT_EQ(pod["spec"]["containers"][0]["volumeMounts"][1], mount);
  pod = Desired(TestJob(2, R"({"spec": {"resources": {"gpusPerReplica": 4}}})")).pods[1];
  EXPECT_EQ(pod["spec"]["volumes"][1]["emptyDir"]["sizeLimit"], "4Gi");
  pod = Desired(TestJob(1, R"({"spec": {"resources": {"processesPerReplica": 2}}})")).pods[0];
  EXPECT_EQ(pod["spec"]["volumes"][1]["emptyDir"]["sizeLimit"], "2Gi");
  pod = Desired(TestJob(1, R"({"spec": {"resources": {"sharedMemory": "512Mi"}}})")).pods[0];
  EXPECT_EQ(pod["spec"]["volumes"][1]["emptyDir"]["sizeLimit"], "512Mi");
}

// gpusPerReplica counts resources.acceleratorResource: nvidia.com/gpu unless set (a MIG slice,
// another vendor's device); the fetch-data init container never asks for it.
TEST(DesiredTest, TheAcceleratorResourceNameIsTheSpecs) {
  api::Job job = TestJob(1, R"({"spec": {"resources": {"gpusPerReplica": 2,
    "acceleratorResource": "nvidia.com/mig-1g.10gb"}}})");
  Json limits = Desired(job).pods[0]["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(limits, (Json{{"nvidia.com/mig-1g.10gb", "2"}}));
  job = TestJob(1, R"({"spec": {"resources": {"gpusPerReplica": 1,
    "acceleratorResource": "example.com/gpu"}, "dataset": {"url": "https://h/x.csv",
    "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}})");
  const Json pod = Desired(job).pods[0];
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["example.com/gpu"], "1");
  EXPECT_FALSE(pod["spec"]["initContainers"][0].contains("resources"));
}

TEST(DesiredTest, ThreadsFromTheSpecOrTheCpuLimit) {
  struct Case {
    const char* spec;
    const char* threads;      // --threads (the spec's training.threads), or "<missing>"
    const char* omp_threads;  // OMP_NUM_THREADS, or "<unset>"
  };
  const Case cases[] = {
      {R"({})", "<missing>", "<unset>"},
      {R"({"training": {"threads": 3}})", "3", "<unset>"},
      {R"({"training": {"threads": 3}, "resources": {"cpu": 8}})", "3", "<unset>"},
      {R"({"resources": {"cpu": 4}})", "<missing>", "4"},
      {R"({"resources": {"cpu": "4", "processesPerReplica": 2}})", "<missing>", "2"},
      {R"({"resources": {"cpu": "7", "processesPerReplica": 2}})", "<missing>", "3"},
      {R"({"resources": {"cpu": "1500m"}})", "<missing>", "1"},
      {R"({"resources": {"cpu": "500m"}})", "<missing>", "1"},
      {R"({"resources": {"cpu": "2", "processesPerReplica": 4}})", "<missing>", "1"},
      {R"({"resources": {"cpu": "2e1", "gpusPerReplica": 4}})", "<missing>", "5"},
      {R"({"resources": {"cpu": 4}, "env": [{"name": "OMP_NUM_THREADS", "value": "2"}]})",
       "<missing>", "2"},
  };
  for (const Case& c : cases) {
    const Json pod = Desired(TestJob(1, std::string(R"({"spec": )") + c.spec + "}")).pods[0];
    EXPECT_EQ(Flag(pod, "--threads"), c.threads) << c.spec;
    EXPECT_EQ(EnvValue(pod, "OMP_NUM_THREADS"), c.omp_threads) << c.spec;
    // The operator's own count is an upper bound the trainer may lower; the user's is fixed.
    const bool from_cpu = c.threads == std::string("<missing>") &&
                          c.omp_threads != std::string("<unset>") &&
                          std::string(c.spec).find("OMP_NUM_THREADS") == std::string::npos;
    EXPECT_EQ(EnvValue(pod, "PETNAME_ADAPTIVE_THREADS"), from_cpu ? "1" : "<unset>") << c.spec;
  }
}

TEST(DesiredTest, VolumesForCheckpointAndDataset) {
  api::Job job = TestJob(1, R"({"spec": {"checkpoint": {"claimName": "ck"},
    "dataset": {"path": "/pets/x.csv", "volume": {"hostPath": "/srv/pets", "mountPath": "/pets"}}}})");
  const DesiredState d = Desired(job);
  const Json& spec = d.pods[0]["spec"];
  EXPECT_EQ(spec["volumes"][0]["persistentVolumeClaim"]["claimName"], "ck");
  EXPECT_EQ(spec["volumes"][1]["hostPath"]["path"], "/srv/pets");
  EXPECT_EQ(spec["containers"][0]["volumeMounts"][1]["mountPath"], "/pets");
  EXPECT_EQ(spec["containers"][0]["volumeMounts"][1]["readOnly"], true);
  EXPECT_TRUE(Desired(TestJob(1)).pods[0]["spec"]["volumes"][0].contains("emptyDir"));
}

// The rank pods of a sweep's trial tell the trainer the sweep's name (its metrics' sweep label);
// other jobs' pods do not.
TEST(DesiredTest, TrialPodsNameTheirSweep) {
  const Json trial = Desired(TestJob(1, R"({"metadata": {"labels":
    {"petname.dev/sweep-name": "grid"}}})"))
                         .pods[0];
  EXPECT_EQ(EnvValue(trial, "PETNAME_SWEEP_NAME"), "grid");
  EXPECT_EQ(EnvValue(Desired(TestJob(1)).pods[0], "PETNAME_SWEEP_NAME"), "<unset>");
}

// The whole volume is mounted at checkpoint.path; the trainer writes under checkpoint.subPath.
TEST(DesiredTest, CheckpointSubPathIsTheTrainersDirectoryNotTheMount) {
  const Json pod = Desired(TestJob(1, R"({"spec": {"checkpoint": {"claimName": "ck",
    "path": "/ck", "subPath": "grid/grid-002"}}})"))
                       .pods[0];
  EXPECT_EQ(pod["spec"]["containers"][0]["volumeMounts"][0]["mountPath"], "/ck");
  EXPECT_FALSE(pod["spec"]["containers"][0]["volumeMounts"][0].contains("subPath"));
  EXPECT_EQ(Flag(pod, "--checkpoint-dir"), "/ck/grid/grid-002");
}

// Jobs sharing a claim get a directory each; the ranks know their job (the owner recorded in
// checkpoints) and read the job's rendezvous secret from its Secret, never from the pod spec.
TEST(DesiredTest, RanksKnowTheirJobAndReadTheRendezvousSecretFromTheJobsSecret) {
  const api::Job job = TestJob(2, R"({"spec": {"checkpoint": {"claimName": "shared"}}})");
  for (const Json& pod : Desired(job).pods) {
    EXPECT_EQ(Flag(pod, "--checkpoint-dir"), "/checkpoints/rex");
    EXPECT_EQ(EnvValue(pod, "PETNAME_JOB_UID"), "job-uid");
    bool found = false;
    for (const Json& e : pod["spec"]["containers"][0]["env"]) {
      if (e["name"] != "PETNAME_RENDEZVOUS_SECRET") continue;
      found = true;
      EXPECT_FALSE(e.contains("value"));
      EXPECT_EQ(e["valueFrom"]["secretKeyRef"],
                Json({{"name", "rex-rendezvous"}, {"key", "secret"}}));
    }
    EXPECT_TRUE(found);
  }
  const Json secret = RendezvousSecret(job, "s3cret");
  EXPECT_EQ(secret["kind"], "Secret");
  EXPECT_EQ(kube::Name(secret), "rex-rendezvous");
  EXPECT_EQ(secret["metadata"]["namespace"], "ml");
  EXPECT_TRUE(kube::IsControlledBy(secret, "job-uid"));
  EXPECT_EQ(secret["stringData"]["secret"], "s3cret");
}

TEST(DesiredTest, OnlyRunWantsPods) {
  for (PodAction action :
       {PodAction::kStop, PodAction::kCleanupRunning, PodAction::kCleanupAll, PodAction::kKeep}) {
    DesiredState d = Desired(TestJob(2), action);
    EXPECT_TRUE(d.pods.empty());
    EXPECT_EQ(d.services.size(), 1u);
  }
}

TEST(DesiredTest, PodsCarryTheRestartGenerationAndResume) {
  api::Job job = TestJob(1, R"({"status": {"restarts": 2}})");
  const Json pod = Desired(job).pods[0];
  EXPECT_EQ(kube::Label(pod, "petname.dev/restart-generation"), "2");
  const std::vector<std::string> args = Args(pod);
  EXPECT_NE(std::find(args.begin(), args.end(), "--resume"), args.end());
}

TEST(DesiredTest, GangSchedulingCoscheduling) {
  api::Job job = TestJob(3, R"({"spec": {"scheduling": {"gang": {"enabled": true,
    "minAvailable": 2}}}})");
  DesiredState d = Desired(job);
  ASSERT_EQ(d.pod_groups.size(), 1u);
  const Json& pg = d.pod_groups[0];
  EXPECT_EQ(pg["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(pg["kind"], "PodGroup");
  EXPECT_EQ(kube::Name(pg), "rex");
  EXPECT_EQ(pg["spec"]["minMember"], 2);
  EXPECT_TRUE(kube::IsControlledBy(pg, "job-uid"));
  EXPECT_EQ(kube::Label(d.pods[0], "scheduling.x-k8s.io/pod-group"), "rex");
  EXPECT_EQ(d.pods[0]["spec"]["schedulerName"], "scheduler-plugins-scheduler");
  EXPECT_EQ(PodGroupsPath(job.spec, "ml"),
            "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/ml/podgroups");
  EXPECT_TRUE(Desired(job, PodAction::kStop).pod_groups.empty());
  api::Job procs = TestJob(3, R"({"spec": {"resources": {"processesPerReplica": 4},
    "scheduling": {"gang": {"enabled": true}}}})");
  EXPECT_EQ(Desired(procs).pod_groups[0]["spec"]["minMember"], 3);  // pods, not ranks
}

TEST(DesiredTest, GangSchedulingVolcano) {
  api::Job job = TestJob(2, R"({"spec": {"scheduling": {"schedulerName": "my-volcano",
    "gang": {"enabled": true, "scheduler": "volcano"}}}})");
  DesiredState d = Desired(job);
  EXPECT_EQ(d.pod_groups[0]["apiVersion"], "scheduling.volcano.sh/v1beta1");
  EXPECT_EQ(d.pod_groups[0]["spec"]["minMember"], 2);  // default: replicas
  EXPECT_EQ(d.pods[1]["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "rex");
  EXPECT_EQ(d.pods[1]["spec"]["schedulerName"], "my-volcano");
}

TEST(DiffTest, CreatesWhatIsMissingAndLeavesForeignObjectsAlone) {
  api::Job job = TestJob(3);
  Observed seen;
  seen.pods.push_back(TestPod("rex-rank-0", "job-uid", "Running"));
  seen.pods.push_back(TestPod("rex-rank-1", "someone-else", "Running"));
  seen.pods.push_back(TestPod("rex-extra", "", "Running"));
  Actions a = Diff(job, Desired(job), seen);
  ASSERT_EQ(a.create.size(), 2u);
  EXPECT_EQ(kube::Name(a.create[0]), "rex");  // the service first
  EXPECT_EQ(kube::Name(a.create[1]), "rex-rank-2");
  EXPECT_EQ(a.conflicts, std::vector<std::string>{"rex-rank-1"});
  EXPECT_TRUE(a.delete_pods.empty());
}

TEST(DiffTest, DeletesControlledPodsBeyondReplicasOnly) {
  api::Job job = TestJob(1);
  Observed seen;
  seen.pods.push_back(TestPod("rex-rank-0", "job-uid", "Running"));
  seen.pods.push_back(TestPod("rex-rank-1", "job-uid", "Running"));
  seen.pods.push_back(TestPod("rex-rank-2", "other", "Running"));
  seen.services.push_back(Desired(job).services[0]);
  Actions a = Diff(job, Desired(job), seen);
  EXPECT_TRUE(a.create.empty());
  EXPECT_EQ(a.delete_pods, std::vector<std::string>{"rex-rank-1"});
}

const NetworkPolicyOptions kPolicy = {
    true, Json::parse(R"([{"namespaceSelector": {"matchLabels": {"team": "obs"}},
                            "podSelector": {"matchLabels": {"app": "prometheus"}}}])")};

TEST(NetworkPolicyTest, OnlyTheJobsPodsReachItAndThePeersItsMetricsPorts) {
  const api::Job job = TestJob(2, R"({"spec": {"labels": {"team": "pets"}}})");
  const DesiredState d = Desired(job, PodAction::kRun, kPolicy);
  ASSERT_EQ(d.network_policies.size(), 1u);
  const Json& np = d.network_policies[0];
  EXPECT_EQ(np["kind"], "NetworkPolicy");
  EXPECT_EQ(np["apiVersion"], "networking.k8s.io/v1");
  EXPECT_EQ(kube::Name(np), "rex");
  EXPECT_EQ(np["metadata"]["namespace"], "ml");
  EXPECT_EQ(np["metadata"]["labels"]["petname.dev/job-name"], "rex");
  EXPECT_EQ(np["metadata"]["labels"]["team"], "pets");
  EXPECT_TRUE(kube::IsControlledBy(np, "job-uid"));
  const Json own = {
      {"matchLabels", {{"app.kubernetes.io/name", "petname"}, {"petname.dev/job-name", "rex"}}}};
  EXPECT_EQ(np["spec"]["podSelector"], own);
  EXPECT_EQ(np["spec"]["policyTypes"], Json::array({"Ingress", "Egress"}));
  // Out: the job's own pods (every port) and DNS, nothing else.
  EXPECT_EQ(np["spec"]["egress"], Json::parse(R"([
    {"to": [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "petname",
                                             "petname.dev/job-name": "rex"}}}]},
    {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}])"));
  const Json& ingress = np["spec"]["ingress"];
  ASSERT_EQ(ingress.size(), 2u);
  // The job's own pods: every port (rendezvous, Gloo/NCCL's ephemeral ones).
  EXPECT_EQ(ingress[0], Json({{"from", Json::array({{{"podSelector", own}}})}}));
  EXPECT_EQ(ingress[1]["from"], kPolicy.metrics_from);
  EXPECT_EQ(ingress[1]["ports"], Json::parse(R"([{"protocol": "TCP", "port": 9400}])"));
  // Every pod's selector matches it: the rank pods carry the selected labels.
  for (const Json& pod : d.pods) {
    for (const auto& [k, v] : own["matchLabels"].items())
      EXPECT_EQ(pod["metadata"]["labels"][k], v);
  }
}

TEST(NetworkPolicyTest, EveryLocalRanksMetricsPortAndNoPeersMeansOnlyTheJob) {
  const api::Job job = TestJob(2, R"({"spec": {"resources": {"processesPerReplica": 4},
    "metrics": {"port": 9500}}})");
  Json port = Desired(job, PodAction::kRun, kPolicy).network_policies[0]["spec"]["ingress"][1];
  EXPECT_EQ(port["ports"], Json::parse(R"([{"protocol": "TCP", "port": 9500, "endPort": 9503}])"));
  const Json alone = Desired(job, PodAction::kRun, {true, Json::array()}).network_policies[0];
  EXPECT_EQ(alone["spec"]["ingress"].size(), 1u) << "a rule without `from` would admit everyone";
}

// A job that downloads its data or runs containers of its own needs connections the operator
// cannot name: its policy leaves egress open. A trainer entry in the template adds no container.
TEST(NetworkPolicyTest, EgressIsRestrictedOnlyWhenThePodsRunNothingButTheTrainer) {
  auto policy_types = [](const std::string& patch) {
    return Desired(TestJob(1, patch), PodAction::kRun, kPolicy)
        .network_policies[0]["spec"]["policyTypes"];
  };
  const Json both = Json::array({"Ingress", "Egress"});
  const Json in = Json::array({"Ingress"});
  EXPECT_EQ(policy_types("{}"), both);
  EXPECT_EQ(policy_types(R"({"spec": {"template": {"spec": {"containers": [{"name": "trainer",
    "env": [{"name": "A", "value": "1"}]}], "volumes": [{"name": "v", "emptyDir": {}}]}}}})"),
            both);
  EXPECT_EQ(policy_types(R"({"spec": {"dataset": {"path": null,
    "url": "https://example.com/pets.csv", "sha256": ")" +
                         std::string(64, 'a') + R"("}}})"),
            in);
  EXPECT_EQ(policy_types(R"({"spec": {"template": {"spec": {"containers": [
    {"name": "sidecar", "image": "busybox"}]}}}})"),
            in);
  EXPECT_EQ(policy_types(R"({"spec": {"template": {"spec": {"initContainers": [
    {"name": "warm", "image": "busybox"}]}}}})"),
            in);
  EXPECT_FALSE(
      Desired(TestJob(1, R"({"spec": {"template": {"spec": {"containers": [{"name": "s"}]}}}})"),
              PodAction::kRun, kPolicy)
          .network_policies[0]["spec"]
          .contains("egress"));
}

TEST(NetworkPolicyTest, CreatedWithTheServiceKeptWhenStoppedAbsentWhenOff) {
  const api::Job job = TestJob(1);
  EXPECT_TRUE(Desired(job).network_policies.empty());
  EXPECT_EQ(Desired(job, PodAction::kStop, kPolicy).network_policies.size(), 1u);
  Observed seen;
  Actions a = Diff(job, Desired(job, PodAction::kRun, kPolicy), seen);
  ASSERT_EQ(a.create.size(), 3u);
  EXPECT_EQ(a.create[0]["kind"], "Service");
  EXPECT_EQ(a.create[1]["kind"], "NetworkPolicy");  // before any pod
  EXPECT_EQ(a.create[2]["kind"], "Pod");
  seen.network_policies.push_back(Desired(job, PodAction::kRun, kPolicy).network_policies[0]);
  a = Diff(job, Desired(job, PodAction::kRun, kPolicy), seen);
  EXPECT_EQ(a.create.size(), 2u);
  Json foreign = seen.network_policies[0];
  foreign["metadata"]["ownerReferences"][0]["uid"] = "someone-else";
  seen.network_policies = {foreign};
  a = Diff(job, Desired(job, PodAction::kRun, kPolicy), seen);
  EXPECT_EQ(a.conflicts, std::vector<std::string>{"rex"});
}

Json Labelled(Json pod, int generation) {
  pod["metadata"]["labels"]["petname.dev/restart-generation"] = std::to_string(generation);
  return pod;
}

TEST(DiffTest, PodsOfAnotherGenerationAreDeletedNotAdopted) {
  api::Job job = TestJob(2, R"({"status": {"restarts": 1}})");
  Observed seen;
  seen.pods.push_back(Labelled(TestPod("rex-rank-0", "job-uid", "Failed"), 0));
  seen.pods.push_back(Labelled(TestPod("rex-rank-1", "job-uid", "Running"), 1));
  Actions a = Diff(job, Desired(job), seen);
  EXPECT_EQ(a.delete_pods, std::vector<std::string>{"rex-rank-0"});
  ASSERT_EQ(a.create.size(), 1u);  // the service; rank 0 comes once the old one is gone
  EXPECT_EQ(kube::Name(a.create[0]), "rex");
}

TEST(DiffTest, PodActions) {
  api::Job job = TestJob(3);
  Observed seen;
  seen.pods.push_back(TestPod("rex-rank-0", "job-uid", "Succeeded"));
  seen.pods.push_back(TestPod("rex-rank-1", "job-uid", "Running"));
  seen.pods.push_back(TestPod("rex-rank-2", "job-uid", "Failed"));
  seen.pods.push_back(TestPod("rex-rank-3", "other", "Running"));
  seen.pods.push_back(TestPod("rex-rank-4", "job-uid", "Running"));
  seen.pods.back()["metadata"]["deletionTimestamp"] = "2027-01-01T00:00:00Z";
  using V = std::vector<std::string>;
  EXPECT_EQ(Diff(job, Desired(job, PodAction::kKeep), seen).delete_pods, V{});
  EXPECT_EQ(Diff(job, Desired(job, PodAction::kCleanupRunning), seen).delete_pods, V{"rex-rank-1"});
  EXPECT_EQ(Diff(job, Desired(job, PodAction::kCleanupAll), seen).delete_pods,
            (V{"rex-rank-0", "rex-rank-1", "rex-rank-2"}));
  EXPECT_EQ(Diff(job, Desired(job, PodAction::kStop), seen).delete_pods,
            (V{"rex-rank-0", "rex-rank-1", "rex-rank-2"}));
}

// Every rank pod knows its gang attempt (the operator's value only) and names the trainer as its
// default container.
TEST(DesiredTest, RankPodsCarryTheAttemptAndTheDefaultContainer) {
  api::Job job = TestJob(2, R"({"spec": {"annotations": {"team": "pets"},
    "env": [{"name": "PETNAME_ATTEMPT", "value": "9"}, {"name": "MINE", "value": "1"}]}})");
  job.status.restarts = 2;
  for (const Json& pod : Desired(job).pods) {
    EXPECT_EQ(EnvValue(pod, "PETNAME_ATTEMPT"), "2");
    EXPECT_EQ(EnvValue(pod, "MINE"), "1");
    const Json& env = pod["spec"]["containers"][0]["env"];
    EXPECT_EQ(std::count_if(env.begin(), env.end(),
                            [](const Json& e) { return e["name"] == "PETNAME_ATTEMPT"; }),
              1);
    const Json& annotations = pod["metadata"]["annotations"];
    EXPECT_EQ(annotations["kubectl.kubernetes.io/default-container"], "trainer");
    EXPECT_EQ(annotations["team"], "pets");
    EXPECT_EQ(pod["spec"]["containers"][0]["name"], "trainer");
  }
}

}  // namespace
}  // namespace petname::controller
