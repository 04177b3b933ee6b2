#include "trainer/cli/train_cli.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/exit_codes.h"
#include "common/file_util.h"
#include "common/metrics/process_collector.h"
#include "trainer/checkpoint/store.h"
#include "trainer/cli/flag_checks.h"
#include "trainer/data/data_check.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/distributed/stop_signal.h"
#include "trainer/launch/cpu_budget.h"
#include "trainer/metrics/katib_metrics_file.h"
#include "trainer/metrics/metrics_server.h"
#include "trainer/metrics/training_metrics.h"
#include "trainer/train/run_recorder.h"

namespace petname::cli {
namespace {

constexpr const char* kDefaultData = "data/seattle_pet_licenses.csv";

// The value of environment variable `name`, or `fallback` when unset or empty.
std::string Env(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// Parses environment variable `name` as a non-negative integer (`fallback` when unset).
Status EnvInt(const char* name, int fallback, int* out) {
  const std::string text = Env(name, std::to_string(fallback));
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || value < 0 || value > 1000000) {
    return Status::InvalidArgument(std::string("environment variable ") + name +
                                   " must be a non-negative integer (got \"" + text + "\")");
  }
  *out = static_cast<int>(value);
  return Status::Ok();
}

// This rank's metrics, labelled with PETNAME_JOB_NAME, PETNAME_NAMESPACE, the rank and
// PETNAME_SWEEP_NAME when set, when
// --metrics-port P (P != 0) serves them on P + LOCAL_RANK or --termination-log wants them.
Status StartMetrics(const TrainFlags& f, std::unique_ptr<metrics::TrainingMetrics>* out,
                    std::unique_ptr<metrics::MetricsServer>* server) {
  if (f.metrics_port == 0 && f.termination_log.empty()) return Status::Ok();
  const dist::RankConfig& rank = f.options.rank;
  auto m = std::make_unique<metrics::TrainingMetrics>(
      metrics::RankLabels{Env("PETNAME_JOB_NAME", "petname"), Env("PETNAME_NAMESPACE", "default"),
                          rank.rank, Env("PETNAME_SWEEP_NAME", "")});
  m->SetInfo(train::RunInfoOf(f.options, /*restarts=*/0));  // before the first scrape answers
  if (f.metrics_port != 0) {
    PETNAME_RETURN_IF_ERROR(metrics::MetricsServer::Start(
        f.metrics_address, metrics::PortForLocalRank(f.metrics_port, rank.local_rank),
        {m->registry(), std::make_shared<metrics::ProcessCollector>(m->labels())}, server));
  }
  *out = std::move(m);
  return Status::Ok();
}

std::string DefaultDataPath() {
  const char* env = std::getenv("PETNAME_DATA");
  return env != nullptr && *env != '\0' ? env : kDefaultData;
}

Status CheckTrainFlags(TrainFlags* f) {
  PETNAME_RETURN_IF_ERROR(f->metrics_env);
  const train::TrainOptions& o = f->options;
  PETNAME_RETURN_IF_ERROR(Positive("--epochs", static_cast<double>(o.epochs)));
  PETNAME_RETURN_IF_ERROR(Positive("--batch-size", static_cast<double>(o.batch_size)));
  PETNAME_RETURN_IF_ERROR(Positive("--lr", o.learning_rate));
  if (f->threads_option->count() > 0) PETNAME_RETURN_IF_ERROR(Positive("--threads", o.threads));
  PETNAME_RETURN_IF_ERROR(
      Positive("--checkpoint-every-epochs", static_cast<double>(o.checkpoint_every)));
  PETNAME_RETURN_IF_ERROR(Positive("--keep", o.keep));
  PETNAME_RETURN_IF_ERROR(Positive("--max-data-bytes", static_cast<double>(f->max_data_bytes)));
  if (f->metrics_port < 0 || f->metrics_port > 65535) {
    return Status::InvalidArgument("--metrics-port must be in [0, 65535] (0 disables metrics)");
  }
  if (!(f->validation_fraction >= 0 && f->validation_fraction < 1)) {
    return Status::InvalidArgument("--validation-fraction must be in [0, 1)");
  }
  PETNAME_RETURN_IF_ERROR(metrics::CheckKatibMetricsPath(o.katib_metrics_file, o.checkpoint_dir));
  if (o.resume && o.checkpoint_dir.empty()) {
    return Status::InvalidArgument("--resume needs --checkpoint-dir");
  }
  if (!model::ParsePrecision(f->precision, &f->options.precision)) {
    return Status::InvalidArgument("--precision must be fp32 or bf16");
  }
  if (f->lstm_impl == "auto") {
    f->options.impl =
        o.device == "cuda" ? model::LstmImpl::kDeviceForest : model::LstmImpl::kHostForest;
  } else if (!model::ParseLstmImpl(f->lstm_impl, &f->options.impl)) {
    return Status::InvalidArgument("--lstm-impl must be auto, host-forest, device-forest or cudnn");
  }
  if (f->options.impl == model::LstmImpl::kHostForest && o.device != "cpu") {
    return Status::InvalidArgument("--lstm-impl host-forest runs on the CPU only");
  }
  f->options.tf32 = !f->no_tf32;
  if (!train::ParseLrDecay(f->lr_schedule, &f->options.lr_decay)) {
    return Status::InvalidArgument("--lr-schedule must be constant or cosine");
  }
  if (o.warmup_steps < 0) return Status::InvalidArgument("--warmup-steps must not be negative");
  if (f->dist.nproc < 0) return Status::InvalidArgument("--nproc must not be negative");
  if (!f->goal.empty()) PETNAME_RETURN_IF_ERROR(train::ParseGoal(f->goal, &f->options.goal));
  if (o.goal.stop && !o.goal.set) return Status::InvalidArgument("--stop-at-goal needs --goal");
  return Status::Ok();
}

Status WriteSummary(const std::string& path, const train::TrainResult& r) {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  nlohmann::json j = {{"epochs", r.epochs},
                      {"steps", r.steps},
                      {"train_loss", r.train_loss},
                      {"val_loss", r.val_loss},
                      {"val_accuracy", r.val_accuracy},
                      {"samples_per_second", r.samples_per_second},
                      {"wall_seconds", r.wall_seconds},
                      {"comm_wait_seconds", r.comm_wait_seconds},
                      {"peak_rss_bytes", static_cast<int64_t>(usage.ru_maxrss) * 1024},
                      {"train_loss_trace", r.train_loss_trace},
                      {"val_loss_trace", r.val_loss_trace},
                      {"parameters_sha256", r.parameters_sha256},
                      {"goal_reached_epoch", nullptr},
                      {"time_to_goal_seconds", nullptr}};
  if (r.goal_reached_epoch > 0) {
    j["goal_reached_epoch"] = r.goal_reached_epoch;
    j["time_to_goal_seconds"] = r.time_to_goal_seconds;
  }
  return WriteFileAtomically(path, j.dump(2) + "\n");
}

// What is trained and how: the data, the optimizer, the device and the model.
void AddTrainingFlags(CLI::App* train, TrainFlags* t) {
  train->add_option(
      "--data", t->data,
      "Seattle pet licence CSV or one name per line, plain or gzip-compressed; default "
      "$PETNAME_DATA, else " +
          std::string(kDefaultData));
  train->add_option("--column", t->column,
                    "CSV column holding the names (default \"Animal's Name\")");
  train
      ->add_option("--epochs", t->options.epochs, "Total epochs (a resumed run continues up to it)")
      ->capture_default_str();
  train->add_option("--batch-size", t->options.batch_size, "Examples per step")
      ->capture_default_str();
  train->add_option("--lr", t->options.learning_rate, "Adam learning rate (the schedule's peak)")
      ->capture_default_str();
  train
      ->add_option("--lr-schedule", t->lr_schedule,
                   "After warm-up: constant, or cosine decay to 0 at the last step")
      ->check(CLI::IsMember({"constant", "cosine"}))
      ->capture_default_str();
  train
      ->add_option("--warmup-steps", t->options.warmup_steps,
                   "Optimizer steps of linear learning-rate warm-up")
      ->capture_default_str();
  train->add_option("--seed", t->options.seed, "Seed for initialisation and data order")
      ->capture_default_str();
  t->threads_option = train->add_option(
      "--threads", t->options.threads,
      "Intra-op threads (default: $OMP_NUM_THREADS, else the CPUs this process may "
      "use: affinity mask capped by the cgroup CPU quota, shared among --nproc ranks)");
  train->add_option("--device", t->options.device, "cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  train
      ->add_option("--precision", t->precision,
                   "fp32 or bf16 (on CUDA, fp32 GEMMs use TF32 unless --no-tf32)")
      ->check(CLI::IsMember({"fp32", "bf16"}))
      ->capture_default_str();
  train
      ->add_option("--lstm-impl", t->lstm_impl,
                   "auto (host-forest on cpu, device-forest on cuda), host-forest, device-forest "
                   "or cudnn")
      ->check(CLI::IsMember({"auto", "host-forest", "device-forest", "cudnn"}))
      ->capture_default_str();
  train->add_flag("--no-tf32", t->no_tf32,
                  "CUDA: keep fp32 GEMMs and cuDNN in full fp32 (no TF32 tensor cores)");
  train->add_flag("--deterministic", t->options.deterministic,
                  "The same seed and settings give the same loss trace on the same device and "
                  "thread count: gradient sums in a fixed order, no thread tuning (slower)");
  train->add_option("--max-names", t->max_names, "Keep only the first N usable names (0: all)");
  train
      ->add_option("--max-data-bytes", t->max_data_bytes,
                   "Refuse a larger --data file, or one that decompresses to more")
      ->capture_default_str();
  train
      ->add_option("--validation-fraction", t->validation_fraction,
                   "Share of distinct names held out (0: no validation; above 0 it must hold out a "
                   "name)")
      ->capture_default_str();
}

// Where the run's checkpoints, summaries and metrics go, and the goal it trains for.
void AddOutputFlags(CLI::App* train, TrainFlags* t) {
  train->add_option("--checkpoint-dir", t->options.checkpoint_dir,
                    "Where checkpoints go (none if unset)");
  train
      ->add_option("--checkpoint-every-epochs", t->options.checkpoint_every,
                   "Save every K epochs (and after the last)")
      ->capture_default_str();
  train->add_option("--keep", t->options.keep, "Keep the newest K checkpoints")
      ->capture_default_str();
  train->add_flag("--resume", t->options.resume,
                  "Continue from the newest valid checkpoint in --checkpoint-dir");
  train->add_flag("--force-resume", t->options.force_resume,
                  "Resume even if the data fingerprint differs");
  train->add_option("--summary-json", t->summary_json, "Write a JSON summary of the run here");
  train->add_option("--termination-log", t->termination_log,
                    "When training ends, rank 0 writes its progress metrics here (the "
                    "container's terminationMessagePath under the operator)");
  t->options.katib_metrics_file = Env("PETNAME_KATIB_METRICS_FILE", "");
  train->add_option("--katib-metrics-file", t->options.katib_metrics_file,
                    "Rank 0 appends a line per epoch here in Katib's File collector JSON format "
                    "(default $PETNAME_KATIB_METRICS_FILE, else none)");
  train->add_option("--goal", t->goal,
                    "validationLoss=V (reached when <= V) or validationAccuracy=V (>= V)");
  train->add_flag("--stop-at-goal", t->options.goal.stop,
                  "End after the first epoch that meets --goal (its checkpoint saved)");
  t->metrics_address = Env("PETNAME_METRICS_ADDRESS", t->metrics_address);
  t->metrics_env = EnvInt("PETNAME_METRICS_PORT", 0, &t->metrics_port);
  train->add_option("--metrics-port", t->metrics_port,
                    "Serve Prometheus /metrics on this port plus LOCAL_RANK (0: off; default "
                    "$PETNAME_METRICS_PORT, else 0)");
  train->add_option("--metrics-address", t->metrics_address,
                    "Address /metrics binds to (default $PETNAME_METRICS_ADDRESS, else 0.0.0.0)");
}

}  // namespace

CLI::App* AddTrainCommand(CLI::App* app, TrainFlags* t) {
  t->data = DefaultDataPath();
  t->options.threads = 0;  // until given: chosen from the CPU budget (launch/cpu_budget.h)
  CLI::App* train = app->add_subcommand("train", "Train the model (docs/reference/cli.md).");
  AddTrainingFlags(train, t);
  AddOutputFlags(train, t);
  AddDistFlags(train, &t->dist);
  AddLogDirFlag(train, &t->logs);
  AddOwnerFlags(train, &t->owner, &t->options);
  return train;
}

Status RunTrainCommand(TrainFlags f, int argc, char** argv, int* exit_code) {
  PETNAME_RETURN_IF_ERROR(CheckTrainFlags(&f));
  f.logs.checkpoint_dir = f.options.checkpoint_dir;
  if (f.dist.nproc > 1) {
    dist::Backend backend;
    std::string source;
    PETNAME_RETURN_IF_ERROR(ChosenBackend(f.dist, f.options.device, &backend, &source));
    PETNAME_RETURN_IF_ERROR(dist::CheckBackendBuilt(backend, source));
    PETNAME_RETURN_IF_ERROR(ChooseLocalAttempt(f.logs));
    return LaunchLocalRanks(f.dist, f.options.threads, argc, argv, exit_code);
  }
  PETNAME_RETURN_IF_ERROR(ApplyDistFlags(f.dist, &f.options));
  PETNAME_RETURN_IF_ERROR(ResolveOwner(f.owner, &f.options));
  launch::ThreadChoice threads;
  PETNAME_RETURN_IF_ERROR(launch::ChooseThreads(f.options.threads, std::getenv("OMP_NUM_THREADS"),
                                                OmpNumThreadsFromPetname(), launch::ReadCpuBudget(),
                                                1, &threads));
  f.options.threads = threads.threads;
  f.options.adapt_threads = threads.adaptive && !f.options.deterministic;
  const bool lead = f.options.rank.rank == 0;
  std::unique_ptr<metrics::TrainingMetrics> metrics;
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  PETNAME_RETURN_IF_ERROR(StartMetrics(f, &metrics, &metrics_server));
  if (lead && !f.options.checkpoint_dir.empty()) {
    Status usable = checkpoint::CheckWritable(f.options.checkpoint_dir, f.options.owner);
    if (!usable.ok()) {
      *exit_code = kExitCheckpointDirUnusable;
      return Status::IoError("checkpoint directory unusable: " + usable.message(),
                             usable.os_error());
    }
  }
  const bool live_progress = ::isatty(STDERR_FILENO) == 1;  // before the log takes stderr
  PETNAME_RETURN_IF_ERROR(KeepRankLog(f.logs, f.options.rank.rank, f.options.rank.world_size));
  train::Reporter reporter({live_progress, !lead});
  data::NameList names;
  PETNAME_RETURN_IF_ERROR(
      data::LoadNames({f.data, f.column, f.max_names, f.max_data_bytes}, &names));
  data::Dataset dataset = data::BuildDataset(names.names, {8, f.validation_fraction});
  PETNAME_RETURN_IF_ERROR(data::CheckTrainable(f.data, names, dataset));
  reporter.Note(data::DataSummary(names, dataset));
  reporter.Note("threads: " + std::to_string(threads.threads) + " intra-op (" + threads.why + ")" +
                (f.options.adapt_threads && threads.threads > 1
                     ? ", fewer while they wait for a CPU"
                     : (threads.threads > 1 ? ", fixed" : "")));
  train::TrainResult result;
  PETNAME_RETURN_IF_ERROR(train::Train(dataset, f.options, &reporter, metrics.get(), &result));
  if (result.preempted) {
    *exit_code = dist::kExitPreempted;
    return Status::Ok();
  }
  if (lead && !f.summary_json.empty()) {
    PETNAME_RETURN_IF_ERROR(WriteSummary(f.summary_json, result));
  }
  if (lead && !f.termination_log.empty()) {
    // Written in place: Kubernetes bind-mounts this one file, so it cannot be renamed over.
    PETNAME_RETURN_IF_ERROR(WriteFile(f.termination_log, metrics->ProgressExposition()));
  }
  return Status::Ok();
}

}  // namespace petname::cli
