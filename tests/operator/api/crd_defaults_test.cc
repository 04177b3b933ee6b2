// The CRD's `default:` values are the one source of truth for a job's defaults. This test reads
// crds/petname.dev_petnametrainingjobs.yaml and checks every one of them against
//  - the operator: api::JobFromJson of a job that leaves the field out (an object stored before
//    the default existed) reads the CRD's value, and so does one defaulted as the API server does;
//  - the trainer: what `petname train` uses without the flag the operator passes for the field,
//    unless the two differ on purpose (kDiffersOnPurpose says why).
// A default added to or removed from the CRD fails the test until Fields() says how it is read.
#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "operator/api/job.h"
#include "trainer/data/dataset.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/train/defaults.h"

#include "tests/support/test_paths.h"

namespace petname::api {
namespace {

// What the operator reads for one CRD default, and what the trainer uses without the flag the
// operator passes for it (null: the trainer has no such setting).
struct Field {
  Json op;
  Json trainer;
};

std::map<std::string, Field> Fields(const JobSpec& s) {
  const Json none;
  return {
      {"spec.replicas", {s.replicas, none}},
      {"spec.imagePullPolicy", {s.image_pull_policy, none}},
      {"spec.resources.gpusPerReplica", {s.gpus_per_replica, none}},
      {"spec.resources.acceleratorResource", {s.accelerator_resource, none}},
      {"spec.dataset.volume.mountPath", {s.dataset_volume.mount_path, none}},
      {"spec.dataset.volume.readOnly", {s.dataset_volume.read_only, none}},
      {"spec.training.epochs", {s.epochs, train::kDefaultEpochs}},
      {"spec.training.batchSizePerReplica", {s.batch_size_per_replica, train::kDefaultBatchSize}},
      {"spec.training.learningRate", {s.learning_rate, train::kDefaultLearningRate}},
      {"spec.training.precision", {s.precision, train::kDefaultPrecision}},
      {"spec.training.seed", {s.seed, train::kDefaultSeed}},
      {"spec.training.validationFraction",
       {s.validation_fraction, data::EncodeOptions{}.validation_fraction}},
      {"spec.training.warmupSteps", {s.warmup_steps, train::kDefaultWarmupSteps}},
      {"spec.training.lrSchedule", {s.lr_schedule, train::kDefaultLrSchedule}},
      {"spec.training.deterministic", {s.deterministic, train::kDefaultDeterministic}},
      {"spec.checkpoint.path", {s.checkpoint_path, ""}},  // no --checkpoint-dir: none
      {"spec.checkpoint.everyEpochs",
       {s.checkpoint_every_epochs, train::kDefaultCheckpointEveryEpochs}},
      {"spec.checkpoint.keep", {s.checkpoint_keep, train::kDefaultKeep}},
      {"spec.runPolicy.restartPolicy", {s.restart_policy, none}},
      {"spec.runPolicy.backoffLimit", {s.backoff_limit, none}},
      {"spec.runPolicy.restartBackoffSeconds", {s.restart_backoff_seconds, none}},
      {"spec.runPolicy.cleanPodPolicy", {s.clean_pod_policy, none}},
      {"spec.runPolicy.suspend", {s.suspend, none}},
      {"spec.runPolicy.startErrorTimeoutSeconds", {s.start_error_timeout_seconds, none}},
      {"spec.scheduling.unschedulableAfterSeconds", {s.unschedulable_after_seconds, none}},
      {"spec.scheduling.gang.enabled", {s.gang_enabled, none}},
      {"spec.scheduling.gang.scheduler", {s.gang_scheduler, none}},
      {"spec.metrics.port", {s.metrics_port, 0}},  // no --metrics-port: no /metrics
      {"spec.masterPort", {s.master_port, dist::kDefaultMasterPort}},
  };
}

// The trainer's defaults that differ from the CRD's on purpose, and why.
const std::map<std::string, std::string> kDiffersOnPurpose = {
    {"spec.checkpoint.path",
     "without --checkpoint-dir the trainer writes no checkpoints; the operator always passes it"},
    {"spec.metrics.port",
     "without --metrics-port the trainer serves no /metrics; the operator always passes it"},
};

YAML::Node Schema() {
  const YAML::Node crd = YAML::LoadFile(testing::JobCrd());
  return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

// A `default:` value as JSON of the schema's type; nullptr for one this test cannot read.
Json Typed(const YAML::Node& value, const std::string& type) {
  if (type == "integer") return value.as<int64_t>();
  if (type == "number") return value.as<double>();
  if (type == "boolean") return value.as<bool>();
  if (type == "string") return value.as<std::string>();
  if (type == "object" && value.IsMap() && value.size() == 0) return Json::object();
  return nullptr;
}

std::string TypeOf(const YAML::Node& schema) { return schema["type"].as<std::string>(""); }

// Every scalar `default:` under `schema` by its path ("spec.training.seed"). Object defaults must
// be `{}` (they only let the defaults inside apply when the object is left out).
void CollectDefaults(const YAML::Node& schema, const std::string& path,
                     std::map<std::string, Json>* out) {
  const YAML::Node props = schema["properties"];
  if (props && props.IsMap()) {
    for (const auto& kv : props) {
      const std::string child_path = path + (path.empty() ? "" : ".") + kv.first.as<std::string>();
      const YAML::Node& child = kv.second;
      if (child["default"]) {
        Json value = Typed(child["default"], TypeOf(child));
        EXPECT_FALSE(value.is_null()) << child_path << ": a default this test cannot read";
        if (!value.is_object()) (*out)[child_path] = value;
      }
      CollectDefaults(child, child_path, out);
    }
  }
  if (schema["items"]) CollectDefaults(schema["items"], path + "[]", out);
}

std::map<std::string, Json> CrdDefaults() {
  std::map<std::string, Json> out;
  CollectDefaults(Schema(), "", &out);
  return out;
}

// Fills in the defaults of `schema` that `obj` leaves out, as the API server does on a write.
void ApplyDefaults(const YAML::Node& schema, Json* obj) {
  const YAML::Node props = schema["properties"];
  if (!props || !props.IsMap() || !obj->is_object()) return;
  for (const auto& kv : props) {
    const std::string name = kv.first.as<std::string>();
    const YAML::Node& child = kv.second;
    if (!obj->contains(name) && child["default"]) {
      (*obj)[name] = Typed(child["default"], TypeOf(child));
    }
    if (obj->contains(name)) ApplyDefaults(child, &(*obj)[name]);
  }
}

// A job with only the required fields, and a dataset volume so that its defaults show.
Json Minimal() {
  return Json::parse(R"({"apiVersion": "petname.dev/v1alpha1", "kind": "PetNameTrainingJob",
    "metadata": {"name": "rex", "namespace": "ml"},
    "spec": {"image": "petname:1",
             "dataset": {"path": "/data/pets.csv", "volume": {"claimName": "pets"}}}})");
}

JobSpec Parse(const Json& obj) {
  Job job;
  Status s = JobFromJson(obj, &job);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return job.spec;
}

TEST(CrdDefaultsTest, EveryCrdDefaultIsChecked) {
  const std::map<std::string, Json> crd = CrdDefaults();
  const std::map<std::string, Field> fields = Fields(Parse(Minimal()));
  EXPECT_GE(crd.size(), 20u);
  for (const auto& [path, value] : crd) {
    EXPECT_EQ(fields.count(path), 1u) << path << " has a default in the CRD: add it to Fields()";
  }
  for (const auto& [path, field] : fields) {
    EXPECT_EQ(crd.count(path), 1u) << path << " has no default in the CRD: drop it from Fields()";
  }
}

TEST(CrdDefaultsTest, TheOperatorReadsTheCrdDefaults) {
  const std::map<std::string, Field> fields = Fields(Parse(Minimal()));
  for (const auto& [path, value] : CrdDefaults()) {
    auto it = fields.find(path);
    if (it == fields.end()) continue;  // EveryCrdDefaultIsChecked fails
    EXPECT_EQ(it->second.op, value) << path << ": the operator's default differs from the CRD's";
  }
}

TEST(CrdDefaultsTest, AnObjectDefaultedByTheApiServerReadsTheSame) {
  Json defaulted = Minimal();
  ApplyDefaults(Schema(), &defaulted);
  EXPECT_EQ(defaulted["spec"]["training"]["seed"], train::kDefaultSeed);
  const std::map<std::string, Field> left_out = Fields(Parse(Minimal()));
  const std::map<std::string, Field> filled_in = Fields(Parse(defaulted));
  for (const auto& [path, field] : left_out) {
    EXPECT_EQ(filled_in.at(path).op, field.op) << path;
  }
}

TEST(CrdDefaultsTest, TheTrainerAgreesOrDiffersOnPurpose) {
  const std::map<std::string, Field> fields = Fields(Parse(Minimal()));
  for (const auto& [path, value] : CrdDefaults()) {
    auto it = fields.find(path);
    if (it == fields.end() || it->second.trainer.is_null()) continue;
    auto why = kDiffersOnPurpose.find(path);
    if (why == kDiffersOnPurpose.end()) {
      EXPECT_EQ(it->second.trainer, value) << path << ": the trainer's default differs from the "
                                           << "CRD's (or list it in kDiffersOnPurpose, saying why)";
    } else {
      EXPECT_NE(it->second.trainer, value)
          << path << " agrees with the CRD now: drop it from kDiffersOnPurpose (" << why->second
          << ")";
    }
  }
  for (const auto& [path, why] : kDiffersOnPurpose) {
    EXPECT_EQ(fields.count(path), 1u) << path << " in kDiffersOnPurpose is no CRD default";
  }
}

}  // namespace
}  // namespace petname::api
