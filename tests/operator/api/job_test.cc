#include "operator/api/job.h"

#include <tuple>

#include <gtest/gtest.h>

namespace petname::api {
namespace {

Json Minimal() {
  return Json::parse(R"({"apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingJob",
    "metadata": {"name": "rex", "namespace": "ml", "uid": "u-1", "generation": 2},
    "spec": {"image": "petname:1", "dataset": {"path": "/data/pets.csv"}}})");
}

// The CRD's defaults are checked against the CRD file in crd_defaults_test.cc.
TEST(JobTest, ReadsIdentityAndChoosesTheBackend) {
  Job job;
  Status s = JobFromJson(Minimal(), &job);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(job.name, "rex");
  EXPECT_EQ(job.ns, "ml");
  EXPECT_EQ(job.uid, "u-1");
  EXPECT_EQ(job.generation, 2);
  EXPECT_EQ(job.spec.backend, "gloo");  // no GPUs
}

TEST(JobTest, ReadsEveryGroup) {
  Json obj = Minimal();
  obj["spec"].update(Json::parse(R"({"replicas": 4, "resources": {"gpusPerReplica": 1,
    "cpu": "2", "memory": "4Gi"}, "dataset": {"path": "/d/x.csv", "column": "Name",
    "maxNames": 100, "volume": {"claimName": "pets"}}, "training": {"epochs": 3,
    "batchSizePerReplica": 512, "learningRate": 0.01, "precision": "bf16", "seed": 9,
    "validationFraction": 0.1, "threads": 2}, "checkpoint": {"claimName": "ck", "path": "/ck",
    "everyEpochs": 2, "keep": 5}, "runPolicy": {"restartPolicy": "Never", "suspend": true,
    "backoffLimit": 7, "restartBackoffSeconds": 2, "activeDeadlineSeconds": 600,
    "ttlSecondsAfterFinished": 60, "cleanPodPolicy": "All"}, "scheduling": {
    "unschedulableAfterSeconds": 5, "gang": {"enabled": true, "minAvailable": 9,
    "scheduler": "volcano"}},
    "metrics": {"port": 9100}, "masterPort": 23456, "env": [{"name": "A", "value": "1"}],
    "labels": {"team": "pets"}, "annotations": {"note": "x"}})"));
  Job job;
  Status s = JobFromJson(obj, &job);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const JobSpec& sp = job.spec;
  EXPECT_EQ(sp.replicas, 4);
  EXPECT_EQ(sp.backend, "nccl");
  EXPECT_EQ(sp.cpu, "2");
  EXPECT_EQ(sp.dataset_column, "Name");
  EXPECT_EQ(sp.dataset_max_names, 100);
  ASSERT_TRUE(sp.has_dataset_volume);
  EXPECT_EQ(sp.dataset_volume.claim_name, "pets");
  EXPECT_EQ(sp.dataset_volume.mount_path, "/data");
  EXPECT_EQ(sp.precision, "bf16");
  EXPECT_EQ(sp.seed, 9);
  EXPECT_EQ(sp.threads, 2);
  EXPECT_EQ(sp.checkpoint_claim, "ck");
  EXPECT_EQ(sp.checkpoint_keep, 5);
  EXPECT_EQ(sp.restart_policy, "Never");
  EXPECT_TRUE(sp.suspend);
  EXPECT_EQ(sp.backoff_limit, 7);
  EXPECT_EQ(sp.restart_backoff_seconds, 2);
  EXPECT_EQ(sp.active_deadline_seconds, 600);
  EXPECT_EQ(sp.ttl_seconds_after_finished, 60);
  EXPECT_EQ(sp.clean_pod_policy, "All");
  EXPECT_EQ(sp.unschedulable_after_seconds, 5);
  EXPECT_TRUE(sp.gang_enabled);
  EXPECT_EQ(sp.gang_min_available, 4);  // clamped to replicas
  EXPECT_EQ(sp.gang_scheduler, "volcano");
  EXPECT_EQ(sp.metrics_port, 9100);
  EXPECT_EQ(sp.master_port, 23456);
  EXPECT_EQ(sp.env.size(), 1u);
  EXPECT_EQ(sp.labels.at("team"), "pets");
}

TEST(JobTest, ReadsThePodTemplate) {
  Json obj = Minimal();
  obj["spec"]["template"] = Json::parse(R"({"metadata": {"labels": {"a": "1"},
    "annotations": {"b": "2"}}, "spec": {"serviceAccountName": "sa",
    "containers": [{"name": "side", "image": "s:1"}]}})");
  Job job;
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  const PodTemplate& t = job.spec.pod_template;
  EXPECT_EQ(t.labels.at("a"), "1");
  EXPECT_EQ(t.annotations.at("b"), "2");
  EXPECT_EQ(t.spec["serviceAccountName"], "sa");
  EXPECT_EQ(t.spec["containers"][0]["name"], "side");
  ASSERT_TRUE(JobFromJson(Minimal(), &job).ok());
  EXPECT_TRUE(job.spec.pod_template.labels.empty());
  EXPECT_EQ(job.spec.pod_template.spec, Json::object());
  for (const auto& [tmpl, want] : {std::pair<const char*, const char*>{
                                       R"({"spec": []})", "spec.template.spec must be an object"},
                                   {R"({"metadata": {"labels": {"a": 1}}})",
                                    "spec.template.metadata.labels must be a map of strings"}}) {
    obj["spec"]["template"] = Json::parse(tmpl);
    Status s = JobFromJson(obj, &job);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << tmpl;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
}

TEST(JobTest, MetricsPortOfAJobObject) {
  Json job = Minimal();
  EXPECT_EQ(MetricsPortOf(job), JobSpec().metrics_port);
  job["spec"]["metrics"] = {{"port", 9500}};
  EXPECT_EQ(MetricsPortOf(job), 9500);
  job["spec"]["metrics"]["port"] = "9500";
  EXPECT_EQ(MetricsPortOf(job), JobSpec().metrics_port);
  EXPECT_EQ(MetricsPortOf(Json::object()), JobSpec().metrics_port);
}

TEST(JobTest, ProcessesPerPodAndWorldSize) {
  // {resources, replicas} -> processes per pod
  const std::tuple<const char*, int, int> cases[] = {
      {R"({})", 3, 1},
      {R"({"gpusPerReplica": 4})", 2, 4},
      {R"({"processesPerReplica": 2})", 2, 2},
      {R"({"processesPerReplica": 8, "cpu": "1500m"})", 1, 8},
      {R"({"processesPerReplica": 4, "gpusPerReplica": 4})", 3, 4},
  };
  for (const auto& [resources, replicas, procs] : cases) {
    Json obj = Minimal();
    obj["spec"]["replicas"] = replicas;
    obj["spec"]["resources"] = Json::parse(resources);
    Job job;
    ASSERT_TRUE(JobFromJson(obj, &job).ok()) << resources;
    EXPECT_EQ(ProcessesPerPod(job.spec), procs) << resources;
    EXPECT_EQ(WorldSize(job.spec), replicas * procs) << resources;
  }
}

TEST(JobTest, ReadsTheScheduleAndTheGoal) {
  Json obj = Minimal();
  Job job;
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(job.spec.warmup_steps, 0);
  EXPECT_EQ(job.spec.lr_schedule, "constant");
  EXPECT_FALSE(job.spec.has_goal);
  obj["spec"]["training"] = Json::parse(R"({"warmupSteps": 100, "lrSchedule": "cosine",
    "goal": {"metric": "validationAccuracy", "value": 0.55, "stop": true}})");
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(job.spec.warmup_steps, 100);
  EXPECT_EQ(job.spec.lr_schedule, "cosine");
  EXPECT_TRUE(job.spec.has_goal);
  EXPECT_EQ(job.spec.goal_metric, "validationAccuracy");
  EXPECT_EQ(job.spec.goal_value, 0.55);
  EXPECT_TRUE(job.spec.goal_stop);
}

// Without a subPath each job gets a directory named after it, so jobs sharing a claim never
// share checkpoints.
TEST(JobTest, CheckpointDirIsThePathThenTheSubPathOrTheJobsName) {
  Json obj = Minimal();
  Job job;
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(CheckpointDir(job.spec, "rex"), "/checkpoints/rex");
  obj["spec"]["checkpoint"] = {{"path", "/ck"}, {"subPath", "grid/grid-001"}};
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(CheckpointDir(job.spec, "rex"), "/ck/grid/grid-001");
  obj["spec"]["checkpoint"]["path"] = "/";
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(CheckpointDir(job.spec, "rex"), "/grid/grid-001");
  obj["spec"]["checkpoint"].erase("subPath");
  ASSERT_TRUE(JobFromJson(obj, &job).ok());
  EXPECT_EQ(CheckpointDir(job.spec, "rex"), "/rex");
}

// /dev/shm: resources.sharedMemory, else 1Gi per process; the accelerator: nvidia.com/gpu unless
// resources.acceleratorResource names another extended resource.
TEST(JobTest, SharedMemoryAndAcceleratorResource) {
  const std::tuple<const char*, Json, const char*> cases[] = {
      {R"({})", "1Gi", "nvidia.com/gpu"},
      {R"({"gpusPerReplica": 8})", "8Gi", "nvidia.com/gpu"},
      {R"({"processesPerReplica": 2})", "2Gi", "nvidia.com/gpu"},
      {R"({"sharedMemory": "16Gi", "gpusPerReplica": 2,
           "acceleratorResource": "nvidia.com/mig-1g.10gb"})",
       "16Gi", "nvidia.com/mig-1g.10gb"},
      {R"({"sharedMemory": 1073741824, "acceleratorResource": "amd.com/gpu"})", 1073741824,
       "amd.com/gpu"},
  };
  for (const auto& [resources, shm, accelerator] : cases) {
    Json obj = Minimal();
    obj["spec"]["resources"] = Json::parse(resources);
    Job job;
    ASSERT_TRUE(JobFromJson(obj, &job).ok()) << resources;
    EXPECT_EQ(SharedMemory(job.spec), shm) << resources;
    EXPECT_EQ(job.spec.accelerator_resource, accelerator) << resources;
  }
}

TEST(JobTest, RejectsWhatTheOperatorCannotActOn) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"replicas": 0})", "replicas"},
      {R"({"image": ""})", "image"},
      {R"({"dataset": {}})", "dataset.path"},
      {R"({"backend": "mpi"})", "backend"},
      {R"({"backend": "nccl"})", "gpusPerReplica"},
      {R"({"replicas": "two"})", "spec.replicas must be an integer"},
      {R"({"training": {"learningRate": "fast"}})", "spec.training.learningRate"},
      {R"({"labels": {"a": 1}})", "spec.labels"},
      {R"({"env": {"A": "1"}})", "spec.env"},
      {R"({"dataset": {"path": "/p", "volume": {"claimName": "a", "hostPath": "/h"}}})",
       "exactly one"},
      {R"({"runPolicy": {"restartPolicy": "Always"}})", "restartPolicy"},
      {R"({"runPolicy": {"cleanPodPolicy": "Some"}})", "cleanPodPolicy"},
      {R"({"scheduling": {"gang": {"scheduler": "kube-batch"}}})", "gang.scheduler"},
      {R"({"resources": {"cpu": "2k"}})", "spec.resources.cpu must be a CPU quantity"},
      {R"({"resources": {"processesPerReplica": 65}})", "processesPerReplica must be 1 to 64"},
      {R"({"resources": {"processesPerReplica": -1}})", "processesPerReplica must be 1 to 64"},
      {R"({"resources": {"processesPerReplica": 2, "gpusPerReplica": 4}})",
       "processesPerReplica must equal gpusPerReplica"},
      {R"({"training": {"warmupSteps": -1}})", "spec.training.warmupSteps must be >= 0"},
      {R"({"training": {"lrSchedule": "step"}})", "spec.training.lrSchedule must be constant or"},
      {R"({"checkpoint": {"subPath": "/abs"}})", "spec.checkpoint.subPath must be a relative"},
      {R"({"checkpoint": {"subPath": "a/../b"}})", "spec.checkpoint.subPath must be a relative"},
      {R"({"checkpoint": {"subPath": "a//b"}})", "spec.checkpoint.subPath must be a relative"},
      {R"({"checkpoint": {"subPath": "a/"}})", "spec.checkpoint.subPath must be a relative"},
      {R"({"training": {"goal": {"metric": "trainLoss", "value": 1}}})",
       "spec.training.goal.metric must be validationLoss or validationAccuracy"},
      {R"({"training": {"goal": {"metric": "validationLoss", "value": "low"}}})",
       "spec.training.goal.value must be a number"},
      {R"({"resources": {"sharedMemory": "1GB"}})", "spec.resources.sharedMemory must be a memory"},
      {R"({"resources": {"sharedMemory": "0"}})", "spec.resources.sharedMemory must be a memory"},
      {R"({"resources": {"sharedMemory": -1}})", "spec.resources.sharedMemory must be a memory"},
      {R"({"resources": {"acceleratorResource": "gpu"}})",
       "spec.resources.acceleratorResource must be an extended resource name"},
      {R"({"resources": {"acceleratorResource": "kubernetes.io/gpu"}})",
       "spec.resources.acceleratorResource must be an extended resource name"},
      {R"({"resources": {"acceleratorResource": 7}})",
       "spec.resources.acceleratorResource must be a string"},
  };
  for (const auto& [patch, want] : cases) {
    Json obj = Minimal();
    obj["spec"].update(Json::parse(patch));
    Job job;
    Status s = JobFromJson(obj, &job);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << patch;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
  Job job;
  EXPECT_FALSE(JobFromJson(Json::array(), &job).ok());
  EXPECT_FALSE(JobFromJson(Json::parse(R"({"metadata": {"name": "x"}})"), &job).ok());
}

}  // namespace
}  // namespace petname::api
