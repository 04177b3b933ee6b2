// PetNameTrainingJob (petname.dev/v1alpha1): the spec the operator reads, with the CRD's
// defaults applied, and its status (job_status.h). The CRD (crds/) is the schema the API server
// enforces; FromJson re-applies its defaults so the operator also works on objects created
// before a default existed, and rejects what it cannot act on.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job_status.h"

namespace petname::api {

using Json = nlohmann::json;

inline constexpr char kGroup[] = "petname.dev";
inline constexpr char kVersion[] = "v1alpha1";
inline constexpr char kApiVersion[] = "petname.dev/v1alpha1";
inline constexpr char kKind[] = "PetNameTrainingJob";
inline constexpr char kPlural[] = "petnametrainingjobs";
// The PetNameTrainingJob collection in `ns` ("" = all namespaces).
std::string JobsPath(const std::string& ns);

// Labels on everything the operator creates.
inline constexpr char kNameLabel[] = "app.kubernetes.io/name";  // value: kAppName
inline constexpr char kAppName[] = "petname";
inline constexpr char kJobNameLabel[] = "petname.dev/job-name";
inline constexpr char kRankLabel[] = "petname.dev/rank";
// The gang restart a pod belongs to (status.restarts when it was created; absent reads as 0).
inline constexpr char kRestartGenerationLabel[] = "petname.dev/restart-generation";

// Whether a rank pod's label or annotation key is the operator's (petname.dev/..., kNameLabel and
// the gang schedulers' pod-group labels): neither a job's template nor a Kueue admission sets it.
bool ReservedPodKey(const std::string& key);

// A volume mounted into every rank pod: exactly one of claim_name, host_path, config_map.
struct VolumeSpec {
  std::string claim_name;
  std::string host_path;
  std::string config_map;
  std::string mount_path;
  bool read_only = true;
};

// spec.template: pod metadata and core/v1 PodSpec fields for every rank pod, merged with what
// the operator renders (jobs/pod_template.h). The PodSpec fields are passed through as
// they are; the API server validates them when the pods are created.
struct PodTemplate {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  Json spec = Json::object();
};

inline constexpr char kDefaultAcceleratorResource[] = "nvidia.com/gpu";

struct JobSpec {
  int replicas = 1;
  // elasticPolicy.minReplicas: the fewest replicas Kueue may admit the job with (partial
  // admission, kueue/workload.h); 0 = unset (all replicas or none).
  int min_replicas = 0;
  std::string image;
  std::string image_pull_policy = "IfNotPresent";
  int gpus_per_replica = 0;
  int processes_per_replica = 0;  // 0 = unset (see ProcessesPerPod)
  Json cpu;                       // Kubernetes CPU quantity (string or number, quantity.h) or null
  Json memory;                    // likewise
  // resources.acceleratorResource: the extended resource gpusPerReplica counts (a MIG slice such
  // as nvidia.com/mig-1g.10gb, another vendor's device, ...).
  std::string accelerator_resource = kDefaultAcceleratorResource;
  // resources.sharedMemory: sizeLimit of the memory-backed /dev/shm (a memory quantity) or null
  // for DefaultSharedMemory.
  Json shared_memory;
  std::string backend;  // "nccl" or "gloo"; defaulted from gpus_per_replica

  std::string dataset_path;
  std::string dataset_column;     // "" = trainer default
  int64_t dataset_max_names = 0;  // 0 = all
  bool has_dataset_volume = false;
  VolumeSpec dataset_volume;
  // dataset.url: downloaded into dataset_path (defaulted by JobFromJson, see DefaultFetchPath)
  // by the fetch-data init container (jobs/data_fetch.h) and checked against
  // dataset_sha256; dataset_max_bytes caps it (0 = the trainer's default).
  std::string dataset_url;
  std::string dataset_sha256;
  int64_t dataset_max_bytes = 0;

  int epochs = 10;
  int batch_size_per_replica = 4096;  // per rank (process)
  double learning_rate = 0.001;
  std::string precision = "fp32";
  int64_t seed = 42;
  double validation_fraction = 0.05;
  int threads = 0;  // 0 = trainer default
  int warmup_steps = 0;
  std::string lr_schedule = "constant";  // constant or cosine
  bool deterministic = false;            // --deterministic: gradient sums in a fixed order
  // training.goal: the trainer records when `goal_metric` first reaches `goal_value`
  // (validationLoss <=, validationAccuracy >=) and, with goal_stop, ends the run there.
  bool has_goal = false;
  std::string goal_metric;  // validationLoss or validationAccuracy
  double goal_value = 0;
  bool goal_stop = false;

  std::string checkpoint_claim;                  // "" = an emptyDir (checkpoints die with the pod)
  std::string checkpoint_path = "/checkpoints";  // where the volume is mounted
  // checkpoint.subPath: a relative directory inside the volume that holds this job's checkpoints
  // ("" = the job's name); the trainer creates it. Trials of a sweep share one volume this way.
  std::string checkpoint_sub_path;
  int checkpoint_every_epochs = 1;
  int checkpoint_keep = 3;

  // runPolicy
  std::string restart_policy = "OnFailure";  // OnFailure, Never or ExitCode
  int backoff_limit = 3;                     // whole-job restarts before Failed
  int restart_backoff_seconds = 10;          // first restart delay; doubles, capped at 5 min
  int64_t active_deadline_seconds = 0;       // 0 = no deadline
  int64_t ttl_seconds_after_finished = -1;   // -1 = keep the finished job
  std::string clean_pod_policy = "Running";  // Running, All or None
  bool suspend = false;
  // How long a rank pod's container may wait with a start error (ImagePullBackOff, ...,
  // jobs/pod_start.h) before the job fails with that reason.
  int64_t start_error_timeout_seconds = 300;

  // scheduling
  int unschedulable_after_seconds = 60;  // Pending+Unschedulable this long is surfaced
  bool gang_enabled = false;
  int gang_min_available = 0;                   // 0 = replicas
  std::string gang_scheduler = "coscheduling";  // coscheduling or volcano

  Json scheduling = Json::object();  // schedulerName, priorityClassName, nodeSelector, ...
  int metrics_port = 9400;
  int master_port = 29500;
  Json env = Json::array();  // extra [{name, value}]
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  PodTemplate pod_template;
};

// The job object: identity plus parsed spec and status; `object` keeps the raw JSON (owner
// references and status writes need it).
struct Job {
  std::string name;
  std::string ns;
  std::string uid;
  int64_t generation = 0;
  JobSpec spec;
  JobStatus status;
  Json object;
};

// The trainer's checkpoint directory: checkpoint.path, then checkpoint.subPath, or the job's name
// when subPath is unset, so that jobs sharing one claim never share a directory (the trainer
// would refuse another job's checkpoints: trainer/checkpoint/owner.h).
std::string CheckpointDir(const JobSpec& spec, const std::string& job_name);

// Processes (local ranks) in each pod: processesPerReplica when set, else gpusPerReplica when
// > 0 (one process per GPU), else 1.
int ProcessesPerPod(const JobSpec& spec);

// The world size: replicas x ProcessesPerPod.
int WorldSize(const JobSpec& spec);

// The sizeLimit of the rank pods' /dev/shm: resources.sharedMemory when set, else 1Gi per
// process (ProcessesPerPod "Gi"), enough for NCCL's shared-memory transport between the GPUs of
// one pod (the container runtime's default /dev/shm is 64 MB).
Json SharedMemory(const JobSpec& spec);

// Where a dataset.url is downloaded when dataset.path is unset: kFetchDir/<UrlFileName(url)>.
inline constexpr char kFetchDir[] = "/var/petname/data";
std::string DefaultFetchPath(const std::string& url);

// Parses a PetNameTrainingJob object, applying defaults. InvalidArgument names the first field
// the operator cannot act on (replicas < 1, missing image or dataset.path (without dataset.url),
// a dataset.url that is not http(s) or lacks a valid sha256, or whose path's directory is / or
// checkpoint.path, unknown backend,
// resources.cpu that is no CPU quantity, resources.sharedMemory that is no memory quantity > 0,
// resources.acceleratorResource that is no extended resource name, processesPerReplica outside
// 1..64 or unequal to a non-zero gpusPerReplica, ...).
Status JobFromJson(const Json& obj, Job* out);

// spec.metrics.port of a PetNameTrainingJob object, or its default when absent or invalid (for
// the progress scraper's targets, which need nothing else of the spec).
int MetricsPortOf(const Json& obj);

}  // namespace petname::api
