#include "trainer/sweep/trial_args.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "trainer/train/defaults.h"

namespace petname::sweep {
namespace {

using Json = nlohmann::json;

// The value at dotted `path` of `spec`, or null.
const Json* Find(const Json& spec, const std::string& path) {
  const Json* node = &spec;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end() || it->is_null()) return nullptr;
    node = &*it;
  }
  return node;
}

// The shortest text that reads back as `value` (sweep::Value's).
std::string Text(double value) {
  Value v;
  v.number = value;
  return v.ToString();
}

// A whole number >= `min` at `path`, or `fallback` when absent.
Status Integer(const Json& spec, const std::string& path, int64_t min, int64_t fallback,
               int64_t* out) {
  const Json* v = Find(spec, path);
  if (v == nullptr) {
    *out = fallback;
    return Status::Ok();
  }
  if (!v->is_number() || std::floor(v->get<double>()) != v->get<double>() ||
      v->get<double>() < static_cast<double>(min)) {
    return Status::InvalidArgument("spec.template." + path + ": must be a whole number >= " +
                                   std::to_string(min) + " (got " + v->dump() + ")");
  }
  *out = static_cast<int64_t>(v->get<double>());
  return Status::Ok();
}

// Appends `flag` and the value at `path` when present: a number, or text when `text`.
Status Optional(const Json& spec, const std::string& path, const std::string& flag, bool text,
                std::vector<std::string>* args) {
  const Json* v = Find(spec, path);
  if (v == nullptr) return Status::Ok();
  if (text ? !v->is_string() : !v->is_number()) {
    return Status::InvalidArgument("spec.template." + path + ": must be a " +
                                   (text ? "string" : "number") + " (got " + v->dump() + ")");
  }
  std::string value;
  if (text) {
    value = v->get<std::string>();
  } else if (v->is_number_integer()) {
    value = std::to_string(v->get<int64_t>());
  } else {
    value = Text(v->get<double>());
  }
  args->insert(args->end(), {flag, value});
  return Status::Ok();
}

}  // namespace

int ThreadsPerRank(int cpu_budget, int parallel, int ranks) {
  return std::max(1, cpu_budget / std::max(1, parallel * ranks));
}

Status TrialTrainArgs(const Json& job_spec, const SweepSpec& spec, const TrialRun& run, bool resume,
                      TrialCommand* out) {
  int64_t replicas = 0;
  int64_t gpus = 0;
  int64_t processes = 0;
  PETNAME_RETURN_IF_ERROR(Integer(job_spec, "replicas", 1, 1, &replicas));
  PETNAME_RETURN_IF_ERROR(Integer(job_spec, "resources.gpusPerReplica", 0, 0, &gpus));
  PETNAME_RETURN_IF_ERROR(
      Integer(job_spec, "resources.processesPerReplica", 1, gpus > 0 ? gpus : 1, &processes));
  int64_t batch = 0;
  PETNAME_RETURN_IF_ERROR(
      Integer(job_spec, "training.batchSizePerReplica", 1, train::kDefaultBatchSize, &batch));
  const int n = static_cast<int>(replicas * processes);
  std::vector<std::string> a = {"train", "--nproc", std::to_string(n), "--threads",
                                std::to_string(ThreadsPerRank(run.cpu_budget, run.parallel, n))};
  if (gpus > 0) a.insert(a.end(), {"--device", "cuda"});
  if (!run.data.empty()) a.insert(a.end(), {"--data", run.data});
  const std::vector<std::pair<const char*, const char*>> numbers = {
      {"training.batchSizePerReplica", "--batch-size"},
      {"training.learningRate", "--lr"},
      {"training.epochs", "--epochs"},
      {"training.warmupSteps", "--warmup-steps"},
      {"training.seed", "--seed"},
      {"training.validationFraction", "--validation-fraction"},
      {"dataset.maxNames", "--max-names"}};
  for (const auto& [path, flag] : numbers) {
    PETNAME_RETURN_IF_ERROR(Optional(job_spec, path, flag, false, &a));
  }
  const std::vector<std::pair<const char*, const char*>> texts = {
      {"training.precision", "--precision"},
      {"training.lrSchedule", "--lr-schedule"},
      {"dataset.column", "--column"}};
  for (const auto& [path, flag] : texts) {
    PETNAME_RETURN_IF_ERROR(Optional(job_spec, path, flag, true, &a));
  }
  if (const Json* v = Find(job_spec, "training.deterministic"); v != nullptr) {
    if (!v->is_boolean()) {
      return Status::InvalidArgument(
          "spec.template.training.deterministic: must be true or false (got " + v->dump() + ")");
    }
    if (v->get<bool>()) a.push_back("--deterministic");
  }
  const std::filesystem::path dir(run.trial_dir);
  a.insert(a.end(), {"--checkpoint-dir", dir.string(), "--summary-json",
                     (dir / kTrialSummaryName).string()});
  if (spec.objective.has_goal) {
    a.insert(a.end(), {"--goal", std::string(MetricName(spec.objective.metric)) + "=" +
                                     Text(spec.objective.goal)});
    if (spec.stop_trial_at_goal) a.push_back("--stop-at-goal");
  }
  if (resume) a.push_back("--resume");
  out->args = std::move(a);
  out->ranks = n;
  out->batch_size_per_rank = batch;
  out->gpu = gpus > 0;
  return Status::Ok();
}

}  // namespace petname::sweep
