#include "operator/api/job.h"

#include "common/url.h"
#include "operator/api/job_spec_check.h"
#include "operator/api/job_spec_read.h"
#include "operator/api/names.h"

namespace petname::api {

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
  Status s = ReadJobSpec(*spec, &job.spec);
  if (s.ok()) s = CheckJobSpec(&job.spec);
  if (!s.ok()) return Status::InvalidArgument("job " + job.name + ": " + s.message());
  auto status = obj.find("status");
  if (status != obj.end()) job.status = JobStatusFromJson(*status);
  job.object = obj;
  *out = std::move(job);
  return Status::Ok();
}

int MetricsPortOf(const Json& obj) {
  int port = JobSpec().metrics_port;
  auto it = obj.find("spec");
  if (it != obj.end() && it->is_object() && !ReadMetricsPort(*it, &port).ok()) {
    port = JobSpec().metrics_port;
  }
  return port;
}

}  // namespace petname::api
