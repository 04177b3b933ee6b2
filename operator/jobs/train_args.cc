#include "operator/jobs/train_args.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "operator/api/quantity.h"

namespace petname::controller {
namespace {

std::string FormatDouble(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

}  // namespace

Threads RankThreads(const api::JobSpec& s) {
  if (s.threads > 0) return {s.threads, false};
  int64_t cores = 0;
  if (s.cpu.is_null() || !api::WholeCpus(s.cpu, &cores)) return {};
  for (const api::Json& e : s.env) {
    if (e.value("name", "") == "OMP_NUM_THREADS") return {};
  }
  const int64_t share = cores / api::ProcessesPerPod(s);
  return {static_cast<int>(std::max<int64_t>(share, 1)), true};
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

}  // namespace petname::controller
