#include "operator/jobs/desired.h"

#include "common/adaptive_threads.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "operator/api/pod.h"
#include "operator/api/quantity.h"
#include "operator/api/sweep.h"
#include "operator/jobs/data_fetch.h"
#include "operator/jobs/gang.h"
#include "operator/jobs/pod_template.h"
#include "operator/jobs/rank_logs.h"
#include "operator/jobs/trainer_template.h"
#include "operator/kube/object.h"

namespace petname::controller {
namespace {

// The trainer container's termination message file: a failed trainer's log tail, or the final
// progress a successful rank 0 writes there (--termination-log).
constexpr char kTerminationLog[] = "/dev/termination-log";
constexpr char kDefaultContainerAnnotation[] = "kubectl.kubernetes.io/default-container";
constexpr char kShmVolume[] = "shm";
constexpr char kShmPath[] = "/dev/shm";

std::string FormatDouble(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

Json Labels(const api::Job& job, int rank) {
  Json labels = Json::object();
  for (const auto& [k, v] : job.spec.labels) labels[k] = v;
  labels[api::kNameLabel] = api::kAppName;
  labels[api::kJobNameLabel] = job.name;
  if (rank >= 0) {
    labels[api::kRankLabel] = std::to_string(rank);
    labels[api::kRestartGenerationLabel] = std::to_string(job.status.restarts);
  }
  return labels;
}

Json Metadata(const api::Job& job, const std::string& name, int rank) {
  Json meta = {{"name", name},
               {"namespace", job.ns},
               {"labels", Labels(job, rank)},
               {"ownerReferences", Json::array({kube::ControllerRef(job.object)})}};
  if (rank >= 0) {
    Json annotations = Json::object();
    for (const auto& [key, value] : job.spec.annotations) annotations[key] = value;
    annotations[kDefaultContainerAnnotation] = kTrainerContainer;  // `kubectl logs` without -c
    meta["annotations"] = annotations;
  }
  return meta;
}

Json Service(const api::Job& job) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(job, job.name, -1)},
          {"spec",
           {{"clusterIP", "None"},
            {"publishNotReadyAddresses", true},
            {"selector", {{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, job.name}}},
            {"ports", Json::array({{{"name", "rendezvous"}, {"port", job.spec.master_port}},
                                   {{"name", "metrics"}, {"port", job.spec.metrics_port}}})}}}};
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
          {"metadata", Metadata(job, PodName(job.name, index), index)},
          {"spec", spec}};
}

const Json* FindByName(const std::vector<Json>& objects, const std::string& name) {
  for (const Json& o : objects) {
    if (kube::Name(o) == name) return &o;
  }
  return nullptr;
}

// Appends `want` to the create list, or to conflicts when a foreign object holds its name.
void Place(const api::Job& job, const Json& want, const std::vector<Json>& have, Actions* out) {
  const std::string name = kube::Name(want);
  const Json* existing = FindByName(have, name);
  if (existing == nullptr) {
    out->create.push_back(want);
  } else if (!kube::IsControlledBy(*existing, job.uid)) {
    out->conflicts.push_back(name);
  }
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

Threads RankThreads(const api::JobSpec& s) {
  if (s.threads > 0) return {s.threads, false};
  int64_t cores = 0;
  if (s.cpu.is_null() || !api::WholeCpus(s.cpu, &cores)) return {};
  for (const Json& e : s.env) {
    if (e.value("name", "") == "OMP_NUM_THREADS") return {};
  }
  const int64_t share = cores / api::ProcessesPerPod(s);
  return {static_cast<int>(std::max<int64_t>(share, 1)), true};
}

std::string RendezvousSecretName(const std::string& job) { return job + "-rendezvous"; }

Json RendezvousSecret(const api::Job& job, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", Metadata(job, RendezvousSecretName(job.name), -1)},
          {"type", "Opaque"},
          {"stringData", {{"secret", value}}}};
}

std::vector<std::string> TrainArgs(const api::Job& job) {
  const api::JobSpec& s = job.spec;
  std::vector<std::string> args = {
      "--data",
      s.dataset_path,
      "--epochs",
      std::to_string(s.epochs),
      "--batch-size",
      std::to_string(s.batch_size_per_replica),
      "--lr",
      FormatDouble(s.learning_rate),
      "--precision",
      s.precision,
      "--seed",
      std::to_string(s.seed),
      "--validation-fraction",
      FormatDouble(s.validation_fraction),
      "--checkpoint-dir",
      api::CheckpointDir(s, job.name),
      "--checkpoint-every-epochs",
      std::to_string(s.checkpoint_every_epochs),
      "--keep",
      std::to_string(s.checkpoint_keep),
      "--warmup-steps",
      std::to_string(s.warmup_steps),
      "--lr-schedule",
      s.lr_schedule,
      "--resume",
      "--termination-log",
      kTerminationLog,
      "--metrics-port",
      std::to_string(s.metrics_port),
  };
  if (s.deterministic) args.emplace_back("--deterministic");
  if (s.has_goal) {
    args.insert(args.end(), {"--goal", s.goal_metric + "=" + FormatDouble(s.goal_value)});
    if (s.goal_stop) args.emplace_back("--stop-at-goal");
  }
  const int procs = api::ProcessesPerPod(s);
  if (procs > 1) args.insert(args.begin(), {"--nproc", std::to_string(procs)});
  if (!s.dataset_column.empty()) args.insert(args.end(), {"--column", s.dataset_column});
  if (s.dataset_max_names > 0) {
    args.insert(args.end(), {"--max-names", std::to_string(s.dataset_max_names)});
  }
  if (s.dataset_max_bytes > 0) {
    args.insert(args.end(), {"--max-data-bytes", std::to_string(s.dataset_max_bytes)});
  }
  const Threads threads = RankThreads(s);
  if (threads.count > 0 && !threads.from_cpu) {
    args.insert(args.end(), {"--threads", std::to_string(threads.count)});
  }
  if (s.gpus_per_replica > 0) args.insert(args.end(), {"--device", "cuda"});
  return args;
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

DesiredState Desired(const api::Job& job, PodAction action, const NetworkPolicyOptions& policy) {
  DesiredState d;
  d.action = action;
  d.services.push_back(Service(job));
  if (policy.enabled) {
    d.network_policies.push_back({{"apiVersion", "networking.k8s.io/v1"},
                                  {"kind", "NetworkPolicy"},
                                  {"metadata", Metadata(job, job.name, -1)},
                                  {"spec", NetworkPolicySpec(job, policy.metrics_from)}});
  }
  if (job.spec.gang_enabled && action == PodAction::kRun) d.pod_groups.push_back(PodGroup(job));
  if (action != PodAction::kRun) return d;
  for (int index = 0; index < job.spec.replicas; ++index) d.pods.push_back(RankPod(job, index));
  return d;
}

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed) {
  Actions out;
  for (const Json& s : desired.services) Place(job, s, observed.services, &out);
  for (const Json& n : desired.network_policies) Place(job, n, observed.network_policies, &out);
  for (const Json& g : desired.pod_groups) {
    Place(job, g, observed.pod_groups, &out);
    const Json* have = FindByName(observed.pod_groups, kube::Name(g));
    if (have == nullptr || !kube::IsControlledBy(*have, job.uid)) continue;
    if (std::optional<Json> resized = ResizedPodGroup(*have, g)) out.update.push_back(*resized);
  }
  const int generation = job.status.restarts;
  std::set<std::string> wanted;
  for (const Json& p : desired.pods) wanted.insert(kube::Name(p));
  std::set<std::string> stale;
  for (const Json& p : observed.pods) {
    if (!kube::IsControlledBy(p, job.uid)) continue;
    if (!kube::StringAt(p, "/metadata/deletionTimestamp").empty()) continue;  // going already
    const std::string phase = kube::StringAt(p, "/status/phase");
    bool remove = false;
    switch (desired.action) {
      case PodAction::kRun:
        remove = !wanted.count(kube::Name(p)) || PodGeneration(p) != generation;
        break;
      case PodAction::kStop:
      case PodAction::kCleanupAll:
        remove = true;
        break;
      case PodAction::kCleanupRunning:
        remove = phase != "Succeeded" && phase != "Failed";
        break;
      case PodAction::kKeep:
        break;
    }
    if (remove) {
      out.delete_pods.push_back(kube::Name(p));
      stale.insert(kube::Name(p));
    }
  }
  for (const Json& p : desired.pods) {
    if (!stale.count(kube::Name(p))) Place(job, p, observed.pods, &out);
  }
  return out;
}

}  // namespace petname::controller
