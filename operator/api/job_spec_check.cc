#include "operator/api/job_spec_check.h"

#include <cstdint>
#include <string>

#include "common/url.h"
#include "operator/api/names.h"
#include "operator/api/quantity.h"

namespace petname::api {
namespace {

constexpr int kMaxProcessesPerReplica = 64;

// "" or segments joined by '/', none empty, "." or "..".
bool ValidSubPath(const std::string& path) {
  if (path.empty()) return true;
  size_t start = 0;
  while (true) {
    const size_t end = path.find('/', start);
    const std::string segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

Status CheckProcesses(const JobSpec& spec) {
  int64_t cores = 0;
  if (!spec.cpu.is_null() && !WholeCpus(spec.cpu, &cores)) {
    return Status::InvalidArgument("spec.resources.cpu must be a CPU quantity such as 2 or 1500m");
  }
  int64_t bytes = 0;
  if (!spec.shared_memory.is_null() && (!MemoryBytes(spec.shared_memory, &bytes) || bytes == 0)) {
    return Status::InvalidArgument(
        "spec.resources.sharedMemory must be a memory quantity above 0 such as 2Gi or 512Mi");
  }
  if (!IsExtendedResourceName(spec.accelerator_resource)) {
    return Status::InvalidArgument(
        "spec.resources.acceleratorResource must be an extended resource name such as "
        "nvidia.com/gpu or nvidia.com/mig-1g.10gb (domain/name, outside kubernetes.io), not '" +
        spec.accelerator_resource + "'");
  }
  const int p = spec.processes_per_replica;
  if (p == 0) return Status::Ok();
  if (p < 1 || p > kMaxProcessesPerReplica) {
    return Status::InvalidArgument("spec.resources.processesPerReplica must be 1 to " +
                                   std::to_string(kMaxProcessesPerReplica));
  }
  if (spec.gpus_per_replica > 0 && p != spec.gpus_per_replica) {
    return Status::InvalidArgument(
        "spec.resources.processesPerReplica must equal gpusPerReplica (one process per GPU)");
  }
  return Status::Ok();
}

// dataset.url's companions; defaults dataset.path when a URL is given.
Status CheckDatasetUrl(JobSpec* spec) {
  if (spec->dataset_url.empty()) {
    if (!spec->dataset_sha256.empty() || spec->dataset_max_bytes != 0) {
      return Status::InvalidArgument("spec.dataset.sha256 and maxBytes are only used with url");
    }
    return Status::Ok();
  }
  DownloadUrl url;
  Status parsed = ParseDownloadUrl(spec->dataset_url, &url);
  if (!parsed.ok()) return Status::InvalidArgument("spec.dataset.url: " + parsed.message());
  const std::string& sum = spec->dataset_sha256;
  if (sum.size() != 64 || sum.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::InvalidArgument(
        "spec.dataset.sha256 must be the file's SHA-256 (64 lower-case hex digits) with url");
  }
  if (spec->has_dataset_volume) {
    return Status::InvalidArgument(
        "spec.dataset.url and spec.dataset.volume are mutually exclusive");
  }
  if (spec->dataset_max_bytes < 0) {
    return Status::InvalidArgument("spec.dataset.maxBytes must be positive");
  }
  if (spec->dataset_path.empty()) spec->dataset_path = DefaultFetchPath(spec->dataset_url);
  const std::string& path = spec->dataset_path;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  std::string checkpoints = spec->checkpoint_path;
  while (checkpoints.size() > 1 && checkpoints.back() == '/') checkpoints.pop_back();
  if (path.front() != '/' || dir.empty() || slash + 1 == path.size() || dir == checkpoints) {
    return Status::InvalidArgument(
        "spec.dataset.path must be a file in an absolute directory other than / and "
        "checkpoint.path with url (the directory becomes the download's volume)");
  }
  return Status::Ok();
}

// runPolicy's enumerations and bounds.
Status CheckRunPolicy(const JobSpec& spec) {
  if (spec.restart_policy != "OnFailure" && spec.restart_policy != "Never" &&
      spec.restart_policy != "ExitCode") {
    return Status::InvalidArgument(
        "spec.runPolicy.restartPolicy must be OnFailure, Never or ExitCode");
  }
  if (spec.clean_pod_policy != "Running" && spec.clean_pod_policy != "All" &&
      spec.clean_pod_policy != "None") {
    return Status::InvalidArgument("spec.runPolicy.cleanPodPolicy must be Running, All or None");
  }
  if (spec.start_error_timeout_seconds < 1) {
    return Status::InvalidArgument("spec.runPolicy.startErrorTimeoutSeconds must be at least 1");
  }
  return Status::Ok();
}

// training's schedule and goal.
Status CheckTraining(const JobSpec& spec) {
  if (spec.warmup_steps < 0) {
    return Status::InvalidArgument("spec.training.warmupSteps must be >= 0");
  }
  if (spec.lr_schedule != "constant" && spec.lr_schedule != "cosine") {
    return Status::InvalidArgument("spec.training.lrSchedule must be constant or cosine");
  }
  if (spec.has_goal && spec.goal_metric != "validationLoss" &&
      spec.goal_metric != "validationAccuracy") {
    return Status::InvalidArgument(
        "spec.training.goal.metric must be validationLoss or validationAccuracy");
  }
  return Status::Ok();
}

}  // namespace

Status CheckJobSpec(JobSpec* spec) {
  if (spec->backend.empty()) spec->backend = spec->gpus_per_replica > 0 ? "nccl" : "gloo";
  if (spec->replicas < 1) return Status::InvalidArgument("spec.replicas must be at least 1");
  if (spec->min_replicas < 0 || spec->min_replicas > spec->replicas) {
    return Status::InvalidArgument("spec.elasticPolicy.minReplicas must be between 1 and replicas");
  }
  if (spec->image.empty()) return Status::InvalidArgument("spec.image is required");
  PETNAME_RETURN_IF_ERROR(CheckDatasetUrl(spec));
  if (spec->dataset_path.empty()) return Status::InvalidArgument("spec.dataset.path is required");
  if (spec->backend != "nccl" && spec->backend != "gloo") {
    return Status::InvalidArgument("spec.backend must be nccl or gloo, not '" + spec->backend +
                                   "'");
  }
  PETNAME_RETURN_IF_ERROR(CheckRunPolicy(*spec));
  if (!ValidSubPath(spec->checkpoint_sub_path)) {
    return Status::InvalidArgument(
        "spec.checkpoint.subPath must be a relative path without '.' or '..' segments");
  }
  PETNAME_RETURN_IF_ERROR(CheckTraining(*spec));
  if (spec->gang_scheduler != "coscheduling" && spec->gang_scheduler != "volcano") {
    return Status::InvalidArgument(
        "spec.scheduling.gang.scheduler must be coscheduling or volcano");
  }
  if (spec->gang_min_available == 0 || spec->gang_min_available > spec->replicas) {
    spec->gang_min_available = spec->replicas;
  }
  if (spec->backend == "nccl" && spec->gpus_per_replica == 0) {
    return Status::InvalidArgument("spec.backend nccl needs resources.gpusPerReplica > 0");
  }
  return CheckProcesses(*spec);
}

}  // namespace petname::api
