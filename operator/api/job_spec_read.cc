#include "operator/api/job_spec_read.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace petname::api {
namespace {

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
  // The member as it is (any JSON type), when present.
  void Raw(const char* key, Json* out) const {
    if (const Json* v = Field(key)) *out = *v;
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

// spec.resources.
void ReadResources(const Reader& res, JobSpec* spec) {
  res.Int("gpusPerReplica", &spec->gpus_per_replica);
  res.Int("processesPerReplica", &spec->processes_per_replica);
  res.Raw("cpu", &spec->cpu);
  res.Raw("memory", &spec->memory);
  res.Raw("sharedMemory", &spec->shared_memory);
  res.String("acceleratorResource", &spec->accelerator_resource);
}

// spec.dataset.
void ReadDataset(const Reader& data, JobSpec* spec) {
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
}

// spec.training.
void ReadTraining(const Reader& t, JobSpec* spec) {
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
}

// spec.checkpoint.
void ReadCheckpoint(const Reader& ck, JobSpec* spec) {
  ck.String("claimName", &spec->checkpoint_claim);
  ck.String("path", &spec->checkpoint_path);
  ck.String("subPath", &spec->checkpoint_sub_path);
  ck.Int("everyEpochs", &spec->checkpoint_every_epochs);
  ck.Int("keep", &spec->checkpoint_keep);
}

// spec.runPolicy.
void ReadRunPolicy(const Reader& run, JobSpec* spec) {
  run.String("restartPolicy", &spec->restart_policy);
  run.Int("backoffLimit", &spec->backoff_limit);
  run.Int("restartBackoffSeconds", &spec->restart_backoff_seconds);
  run.Int("activeDeadlineSeconds", &spec->active_deadline_seconds);
  run.Int("ttlSecondsAfterFinished", &spec->ttl_seconds_after_finished);
  run.String("cleanPodPolicy", &spec->clean_pod_policy);
  run.Bool("suspend", &spec->suspend);
  run.Int("startErrorTimeoutSeconds", &spec->start_error_timeout_seconds);
}

// spec.scheduling: kept whole for the pods' scheduling fields, and its members the operator reads.
void ReadScheduling(const Reader& r, JobSpec* spec) {
  r.Raw("scheduling", &spec->scheduling);
  Reader sched = r.Child("scheduling");
  sched.Int("unschedulableAfterSeconds", &spec->unschedulable_after_seconds);
  Reader gang = sched.Child("gang");
  gang.Bool("enabled", &spec->gang_enabled);
  gang.Int("minAvailable", &spec->gang_min_available);
  gang.String("scheduler", &spec->gang_scheduler);
}

// spec.env: a list, its entries passed through.
void ReadEnv(const Reader& r, JobSpec* spec) {
  const Json* v = r.Field("env");
  if (v == nullptr) return;
  if (!v->is_array()) return r.Fail("env", "must be a list");
  spec->env = *v;
}

// spec.template: pod metadata and PodSpec fields, the latter passed through.
void ReadTemplate(const Reader& tmpl, PodTemplate* out) {
  tmpl.Child("metadata").StringMap("labels", &out->labels);
  tmpl.Child("metadata").StringMap("annotations", &out->annotations);
  const Json* v = tmpl.Field("spec");
  if (v == nullptr) return;
  if (!v->is_object()) return tmpl.Fail("spec", "must be an object");
  out->spec = *v;
}

}  // namespace

Status ReadJobSpec(const Json& spec_json, JobSpec* spec) {
  Status st;
  Reader r(spec_json, "", &st);
  r.Int("replicas", &spec->replicas);
  r.Child("elasticPolicy").Int("minReplicas", &spec->min_replicas);
  r.String("image", &spec->image);
  r.String("imagePullPolicy", &spec->image_pull_policy);
  ReadResources(r.Child("resources"), spec);
  r.String("backend", &spec->backend);
  ReadDataset(r.Child("dataset"), spec);
  ReadTraining(r.Child("training"), spec);
  ReadCheckpoint(r.Child("checkpoint"), spec);
  ReadRunPolicy(r.Child("runPolicy"), spec);
  ReadScheduling(r, spec);
  r.Child("metrics").Int("port", &spec->metrics_port);
  r.Int("masterPort", &spec->master_port);
  ReadEnv(r, spec);
  r.StringMap("labels", &spec->labels);
  r.StringMap("annotations", &spec->annotations);
  ReadTemplate(r.Child("template"), &spec->pod_template);
  return st;
}

Status ReadMetricsPort(const Json& spec_json, int* port) {
  Status st;
  int read = *port;
  Reader(spec_json, "", &st).Child("metrics").Int("port", &read);
  if (st.ok()) *port = read;
  return st;
}

}  // namespace petname::api
