#include "operator/jobs/rank_pod.h"

#include <string>
#include <utility>
#include <vector>

#include "common/adaptive_threads.h"
#include "operator/api/pod.h"
#include "operator/api/sweep.h"
#include "operator/jobs/data_fetch.h"
#include "operator/jobs/gang.h"
#include "operator/jobs/job_metadata.h"
#include "operator/jobs/pod_template.h"
#include "operator/jobs/rank_logs.h"
#include "operator/jobs/rendezvous_secret.h"
#include "operator/jobs/train_args.h"
#include "operator/jobs/trainer_template.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kDefaultContainerAnnotation[] = "kubectl.kubernetes.io/default-container";
constexpr char kShmVolume[] = "shm";
constexpr char kShmPath[] = "/dev/shm";

// The job's metadata with the rank's labels and the pod annotations.
Json RankPodMetadata(const api::Job& job, int index) {
  Json meta = OwnedMetadata(job, PodName(job.name, index));
  meta["labels"][api::kRankLabel] = std::to_string(index);
  meta["labels"][api::kRestartGenerationLabel] = std::to_string(job.status.restarts);
  Json annotations = Json::object();
  for (const auto& [key, value] : job.spec.annotations) annotations[key] = value;
  annotations[kDefaultContainerAnnotation] = kTrainerContainer;  // `kubectl logs` without -c
  meta["annotations"] = annotations;
  return meta;
}

Json Env(const api::Job& job, int index) {
  const api::JobSpec& s = job.spec;
  const int procs = api::ProcessesPerPod(s);
  std::vector<std::pair<std::string, std::string>> vars = {
      {"MASTER_ADDR", PodName(job.name, 0) + "." + job.name + "." + job.ns + ".svc"},
      {"MASTER_PORT", std::to_string(s.master_port)},
      {"WORLD_SIZE", std::to_string(api::WorldSize(s))},
  };
  if (procs == 1) vars.insert(vars.end(), {{"RANK", std::to_string(index)}, {"LOCAL_RANK", "0"}});
  Json env = Json::array();
  for (const auto& [k, v] : vars) {
    env.push_back({{"name", k}, {"value", v}});
    env.push_back({{"name", "PET_" + k}, {"value", v}});
  }
  env.push_back({{"name", "PET_NNODES"}, {"value", std::to_string(s.replicas)}});
  env.push_back({{"name", "PET_NPROC_PER_NODE"}, {"value", std::to_string(procs)}});
  env.push_back({{"name", "PET_NODE_RANK"}, {"value", std::to_string(index)}});
  const Threads threads = RankThreads(s);
  if (threads.from_cpu) {
    env.push_back({{"name", "OMP_NUM_THREADS"}, {"value", std::to_string(threads.count)}});
    env.push_back({{"name", kAdaptiveThreadsEnv}, {"value", "1"}});
  }
  env.push_back({{"name", "PETNAME_JOB_NAME"}, {"value", job.name}});
  env.push_back({{"name", "PETNAME_NAMESPACE"}, {"value", job.ns}});
  env.push_back({{"name", "PETNAME_JOB_UID"}, {"value", job.uid}});
  env.push_back(
      {{"name", "PETNAME_RENDEZVOUS_SECRET"},
       {"valueFrom",
        {{"secretKeyRef", {{"name", RendezvousSecretName(job.name)}, {"key", "secret"}}}}}});
  const std::string sweep = kube::Label(job.object, api::kSweepNameLabel);
  if (!sweep.empty()) env.push_back({{"name", "PETNAME_SWEEP_NAME"}, {"value", sweep}});
  env.push_back({{"name", "PETNAME_BACKEND"}, {"value", s.backend}});
  env.push_back({{"name", kAttemptEnv}, {"value", std::to_string(job.status.restarts)}});
  for (const Json& e : s.env) {
    if (!e.is_object() || e.value("name", "") != kAttemptEnv) env.push_back(e);
  }
  return env;
}

// metrics (local rank 0), metrics-1 .. metrics-(P-1), rendezvous.
Json Ports(const api::JobSpec& s) {
  Json ports = Json::array({{{"name", "metrics"}, {"containerPort", s.metrics_port}}});
  for (int local = 1; local < api::ProcessesPerPod(s); ++local) {
    ports.push_back(
        {{"name", "metrics-" + std::to_string(local)}, {"containerPort", s.metrics_port + local}});
  }
  ports.push_back({{"name", "rendezvous"}, {"containerPort", s.master_port}});
  return ports;
}

Json Resources(const api::JobSpec& s) {
  Json limits = Json::object();
  if (!s.cpu.is_null()) limits["cpu"] = s.cpu;
  if (!s.memory.is_null()) limits["memory"] = s.memory;
  Json requests = limits;
  if (s.gpus_per_replica > 0) limits[s.accelerator_resource] = std::to_string(s.gpus_per_replica);
  Json out = Json::object();
  if (!limits.empty()) out["limits"] = limits;
  if (!requests.empty()) out["requests"] = requests;
  return out;
}

Json VolumeSource(const api::VolumeSpec& v) {
  if (!v.claim_name.empty()) {
    return {{"persistentVolumeClaim", {{"claimName", v.claim_name}, {"readOnly", v.read_only}}}};
  }
  if (!v.host_path.empty()) return {{"hostPath", {{"path", v.host_path}}}};
  return {{"configMap", {{"name", v.config_map}}}};
}

// The rank pod as the operator alone renders it (no template, no gang).
Json OperatorPod(const api::Job& job, int index) {
  const api::JobSpec& s = job.spec;
  Json args = Json::array({"train"});
  for (const std::string& a : TrainArgs(job)) args.push_back(a);
  Json mounts = Json::array({{{"name", "checkpoints"}, {"mountPath", s.checkpoint_path}}});
  Json checkpoint = {{"name", "checkpoints"}};
  if (s.checkpoint_claim.empty()) {
    checkpoint["emptyDir"] = Json::object();
  } else {
    checkpoint["persistentVolumeClaim"] = {{"claimName", s.checkpoint_claim}};
  }
  Json volumes = Json::array({checkpoint});
  if (s.has_dataset_volume) {
    Json dataset = VolumeSource(s.dataset_volume);
    dataset["name"] = "dataset";
    volumes.push_back(dataset);
    mounts.push_back({{"name", "dataset"},
                      {"mountPath", s.dataset_volume.mount_path},
                      {"readOnly", s.dataset_volume.read_only}});
  }
  // NCCL's shared-memory transport (and the trainer's local ranks) need more /dev/shm than the
  // container runtime's 64 MB: a memory-backed emptyDir of api::SharedMemory.
  volumes.push_back({{"name", kShmVolume},
                     {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", api::SharedMemory(s)}}}});
  mounts.push_back({{"name", kShmVolume}, {"mountPath", kShmPath}});
  Json init_containers = Json::array();
  AddDataFetch(s, Resources(s), &volumes, &mounts, &init_containers);
  Json container = {{"name", kTrainerContainer},
                    {"image", s.image},
                    {"imagePullPolicy", s.image_pull_policy},
                    {"command", Json::array({"petname"})},
                    {"args", args},
                    {"env", Env(job, index)},
                    {"ports", Ports(s)},
                    {"resources", Resources(s)},
                    {"volumeMounts", mounts},
                    {"securityContext", TrainerSecurityContext()},
                    // A failed trainer's last stderr lines become the terminated state's
                    // message (pod_failure.h), so a failed job says why, not only its exit
                    // code; a trainer that succeeded leaves its final progress there.
                    {"terminationMessagePath", kTerminationLog},
                    {"terminationMessagePolicy", "FallbackToLogsOnError"}};
  // The trainer never calls the API server: no ServiceAccount token unless the template asks.
  Json spec = {{"restartPolicy", "Never"},
               {"automountServiceAccountToken", false},
               {"hostname", PodName(job.name, index)},
               {"subdomain", job.name},
               {"containers", Json::array({container})},
               {"volumes", volumes}};
  if (!init_containers.empty()) spec["initContainers"] = init_containers;
  for (const char* key :
       {"schedulerName", "priorityClassName", "nodeSelector", "tolerations", "affinity"}) {
    if (s.scheduling.is_object() && s.scheduling.contains(key)) spec[key] = s.scheduling[key];
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", RankPodMetadata(job, index)},
          {"spec", spec}};
}

}  // namespace

Json TrainerSecurityContext() {
  return {{"allowPrivilegeEscalation", false},
          {"capabilities", {{"drop", Json::array({"ALL"})}}},
          {"readOnlyRootFilesystem", true},
          {"runAsNonRoot", true},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}};
}

std::string PodName(const std::string& job, int rank) {
  return job + "-rank-" + std::to_string(rank);
}

Status CheckPodTemplate(const api::Job& job) {
  const api::PodTemplate& t = job.spec.pod_template;
  if (t.labels.empty() && t.annotations.empty() && t.spec.empty()) return Status::Ok();
  Json pod = OperatorPod(job, 0);
  const std::vector<std::string> conflicts = MergePodTemplate(t, &pod);
  if (conflicts.empty()) return Status::Ok();
  std::string message = "spec.template sets what the operator owns: ";
  for (size_t i = 0; i < conflicts.size(); ++i) message += (i > 0 ? "; " : "") + conflicts[i];
  return Status::InvalidArgument(message);
}

Json RankPod(const api::Job& job, int index) {
  Json pod = OperatorPod(job, index);
  MergePodTemplate(job.spec.pod_template, &pod);
  if (job.spec.gang_enabled) JoinGang(job, &pod);
  return pod;
}

int PodGeneration(const Json& pod) {
  return api::LabelNumber(kube::Label(pod, api::kRestartGenerationLabel), 0);
}

}  // namespace petname::controller
