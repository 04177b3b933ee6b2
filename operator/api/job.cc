#include "operator/api/job.h"

#include "common/url.h"
#include "operator/api/names.h"
#include "operator/api/quantity.h"

namespace petname::api {
namespace {

constexpr int kMaxProcessesPerReplica = 64;

// Reads optional members of one JSON object with type checks, remembering the first error.
class Reader {
 public:
  Reader(const Json& obj, std::string prefix, Status* status)
      : obj_(obj), prefix_(std::move(prefix)), status_(status) {}

  const Json* Field(const char* key) const {
    if (!obj_.is_object()) return nullptr;
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }
  Reader Child(const char* key) const {
    const Json* v = Field(key);
    return Reader(v != nullptr ? *v : Empty(), prefix_ + key + ".", status_);
  }
  void Int(const char* key, int64_t* out) const {
    const Json* v = Field(key);
    if (v == nullptr) return;
    if (!v->is_number_integer()) return Fail(key, "must be an integer");
    *out = v->get<int64_t>();
  }
  void Int(const char* key, int* out) const {
    int64_t v = *out;
    Int(key, &v);
    *out = static_cast<int>(v);
  }
  void Number(const char* key, double* out) const {
    const Json* v = Field(key);
    if (v == nullptr) return;
    if (!v->is_number()) return Fail(key, "must be a number");
    *out = v->get<double>();
  }
  void String(const char* key, std::string* out) const {
    const Json* v = Field(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Fail(key, "must be a string");
    *out = v->get<std::string>();
  }
  void Bool(const char* key, bool* out) const {
    const Json* v = Field(key);
    if (v == nullptr) return;
    if (!v->is_boolean()) return Fail(key, "must be a boolean");
    *out = v->get<bool>();
  }
  void StringMap(const char* key, std::map<std::string, std::string>* out) const {
    const Json* v = Field(key);
    if (v == nullptr) return;
    if (!v->is_object()) return Fail(key, "must be a map of strings");
    for (const auto& [k, val] : v->items()) {
      if (!val.is_string()) return Fail(key, "must be a map of strings");
      (*out)[k] = val.get<std::string>();
    }
  }
  void Fail(const char* key, const std::string& what) const {
    if (status_->ok()) *status_ = Status::InvalidArgument("spec." + prefix_ + key + " " + what);
  }

 private:
  static const Json& Empty() {
    static const Json empty = Json::object();
    return empty;
  }
  const Json& obj_;
  std::string prefix_;
  Status* status_;
};

void ReadVolume(const Reader& r, VolumeSpec* v) {
  r.String("claimName", &v->claim_name);
  r.String("hostPath", &v->host_path);
  r.String("configMap", &v->config_map);
  r.String("mountPath", &v->mount_path);
  r.Bool("readOnly", &v->read_only);
  int sources = !v->claim_name.empty() + !v->host_path.empty() + !v->config_map.empty();
  if (sources != 1) r.Fail("", "needs exactly one of claimName, hostPath, configMap");
  if (v->mount_path.empty()) v->mount_path = "/data";
}

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

Status ReadSpec(const Json& spec_json, JobSpec* spec) {
  Status st;
  Reader r(spec_json, "", &st);
  r.Int("replicas", &spec->replicas);
  r.Child("elasticPolicy").Int("minReplicas", &spec->min_replicas);
  r.String("image", &spec->image);
  r.String("imagePullPolicy", &spec->image_pull_policy);
  Reader res = r.Child("resources");
  res.Int("gpusPerReplica", &spec->gpus_per_replica);
  res.Int("processesPerReplica", &spec->processes_per_replica);
  if (const Json* v = res.Field("cpu")) spec->cpu = *v;
  if (const Json* v = res.Field("memory")) spec->memory = *v;
  if (const Json* v = res.Field("sharedMemory")) spec->shared_memory = *v;
  res.String("acceleratorResource", &spec->accelerator_resource);
  r.String("backend", &spec->backend);

  Reader data = r.Child("dataset");
  data.String("path", &spec->dataset_path);
  data.String("column", &spec->dataset_column);
  data.Int("maxNames", &spec->dataset_max_names);
  data.String("url", &spec->dataset_url);
  data.String("sha256", &spec->dataset_sha256);
  data.Int("maxBytes", &spec->dataset_max_bytes);
  if (data.Field("volume") != nullptr) {
    spec->has_dataset_volume = true;
    ReadVolume(data.Child("volume"), &spec->dataset_volume);
  }

  Reader t = r.Child("training");
  t.Int("epochs", &spec->epochs);
  t.Int("batchSizePerReplica", &spec->batch_size_per_replica);
  t.Number("learningRate", &spec->learning_rate);
  t.String("precision", &spec->precision);
  t.Int("seed", &spec->seed);
  t.Number("validationFraction", &spec->validation_fraction);
  t.Int("threads", &spec->threads);
  t.Int("warmupSteps", &spec->warmup_steps);
  t.String("lrSchedule", &spec->lr_schedule);
  t.Bool("deterministic", &spec->deterministic);
  if (t.Field("goal") != nullptr) {
    spec->has_goal = true;
    Reader goal = t.Child("goal");
    goal.String("metric", &spec->goal_metric);
    goal.Number("value", &spec->goal_value);
    goal.Bool("stop", &spec->goal_stop);
  }

  Reader ck = r.Child("checkpoint");
  ck.String("claimName", &spec->checkpoint_claim);
  ck.String("path", &spec->checkpoint_path);
  ck.String("subPath", &spec->checkpoint_sub_path);
  ck.Int("everyEpochs", &spec->checkpoint_every_epochs);
  ck.Int("keep", &spec->checkpoint_keep);

  Reader run = r.Child("runPolicy");
  run.String("restartPolicy", &spec->restart_policy);
  run.Int("backoffLimit", &spec->backoff_limit);
  run.Int("restartBackoffSeconds", &spec->restart_backoff_seconds);
  run.Int("activeDeadlineSeconds", &spec->active_deadline_seconds);
  run.Int("ttlSecondsAfterFinished", &spec->ttl_seconds_after_finished);
  run.String("cleanPodPolicy", &spec->clean_pod_policy);
  run.Bool("suspend", &spec->suspend);
  run.Int("startErrorTimeoutSeconds", &spec->start_error_timeout_seconds);

  if (const Json* v = r.Field("scheduling")) spec->scheduling = *v;
  Reader sched = r.Child("scheduling");
  sched.Int("unschedulableAfterSeconds", &spec->unschedulable_after_seconds);
  Reader gang = sched.Child("gang");
  gang.Bool("enabled", &spec->gang_enabled);
  gang.Int("minAvailable", &spec->gang_min_available);
  gang.String("scheduler", &spec->gang_scheduler);
  r.Child("metrics").Int("port", &spec->metrics_port);
  r.Int("masterPort", &spec->master_port);
  if (const Json* v = r.Field("env")) {
    if (!v->is_array())
      r.Fail("env", "must be a list");
    else
      spec->env = *v;
  }
  r.StringMap("labels", &spec->labels);
  r.StringMap("annotations", &spec->annotations);
  Reader tmpl = r.Child("template");
  tmpl.Child("metadata").StringMap("labels", &spec->pod_template.labels);
  tmpl.Child("metadata").StringMap("annotations", &spec->pod_template.annotations);
  if (const Json* v = tmpl.Field("spec")) {
    if (!v->is_object())
      tmpl.Fail("spec", "must be an object");
    else
      spec->pod_template.spec = *v;
  }
  PETNAME_RETURN_IF_ERROR(st);

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
  if (spec->restart_policy != "OnFailure" && spec->restart_policy != "Never" &&
      spec->restart_policy != "ExitCode") {
    return Status::InvalidArgument(
        "spec.runPolicy.restartPolicy must be OnFailure, Never or ExitCode");
  }
  if (spec->clean_pod_policy != "Running" && spec->clean_pod_policy != "All" &&
      spec->clean_pod_policy != "None") {
    return Status::InvalidArgument("spec.runPolicy.cleanPodPolicy must be Running, All or None");
  }
  if (spec->start_error_timeout_seconds < 1) {
    return Status::InvalidArgument("spec.runPolicy.startErrorTimeoutSeconds must be at least 1");
  }
  if (!ValidSubPath(spec->checkpoint_sub_path)) {
    return Status::InvalidArgument(
        "spec.checkpoint.subPath must be a relative path without '.' or '..' segments");
  }
  if (spec->warmup_steps < 0) {
    return Status::InvalidArgument("spec.training.warmupSteps must be >= 0");
  }
  if (spec->lr_schedule != "constant" && spec->lr_schedule != "cosine") {
    return Status::InvalidArgument("spec.training.lrSchedule must be constant or cosine");
  }
  if (spec->has_goal && spec->goal_metric != "validationLoss" &&
      spec->goal_metric != "validationAccuracy") {
    return Status::InvalidArgument(
        "spec.training.goal.metric must be validationLoss or validationAccuracy");
  }
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

}  // namespace

std::string JobsPath(const std::string& ns) {
  std::string base = std::string("/apis/") + kApiVersion;
  return ns.empty() ? base + "/" + kPlural : base + "/namespaces/" + ns + "/" + kPlural;
}

bool ReservedPodKey(const std::string& key) {
  return key.rfind("petname.dev/", 0) == 0 || key == kNameLabel ||
         key == "scheduling.x-k8s.io/pod-group" || key == "scheduling.k8s.io/group-name";
}

std::string DefaultFetchPath(const std::string& url) {
  return std::string(kFetchDir) + "/" + UrlFileName(url);
}

std::string CheckpointDir(const JobSpec& spec, const std::string& job_name) {
  const std::string& base = spec.checkpoint_path;
  const std::string& sub = spec.checkpoint_sub_path.empty() ? job_name : spec.checkpoint_sub_path;
  return (base.back() == '/' ? base : base + "/") + sub;
}

int ProcessesPerPod(const JobSpec& spec) {
  if (spec.processes_per_replica > 0) return spec.processes_per_replica;
  return spec.gpus_per_replica > 0 ? spec.gpus_per_replica : 1;
}

int WorldSize(const JobSpec& spec) { return spec.replicas * ProcessesPerPod(spec); }

Json SharedMemory(const JobSpec& spec) {
  if (!spec.shared_memory.is_null()) return spec.shared_memory;
  return std::to_string(ProcessesPerPod(spec)) + "Gi";
}

Status JobFromJson(const Json& obj, Job* out) {
  if (!obj.is_object()) return Status::InvalidArgument("job: not a JSON object");
  Job job;
  const Json meta = obj.value("metadata", Json::object());
  job.name = meta.value("name", "");
  job.ns = meta.value("namespace", "");
  job.uid = meta.value("uid", "");
  job.generation = meta.value("generation", int64_t{0});
  if (job.name.empty()) return Status::InvalidArgument("job: metadata.name is empty");
  Status named = CheckObjectName(job.name, kMaxJobName);
  if (!named.ok()) return Status::InvalidArgument("job: " + named.message());
  auto spec = obj.find("spec");
  if (spec == obj.end() || !spec->is_object()) {
    return Status::InvalidArgument("job " + job.name + ": spec is missing");
  }
  Status s = ReadSpec(*spec, &job.spec);
  if (!s.ok()) return Status::InvalidArgument("job " + job.name + ": " + s.message());
  auto status = obj.find("status");
  if (status != obj.end()) job.status = JobStatusFromJson(*status);
  job.object = obj;
  *out = std::move(job);
  return Status::Ok();
}

int MetricsPortOf(const Json& obj) {
  JobSpec spec;
  Status st;
  auto it = obj.find("spec");
  if (it != obj.end() && it->is_object()) {
    Reader(*it, "", &st).Child("metrics").Int("port", &spec.metrics_port);
  }
  return st.ok() ? spec.metrics_port : JobSpec().metrics_port;
}

}  // namespace petname::api
