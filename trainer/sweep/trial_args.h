// A trial of `petname sweep` as a `petname train` command line: the trial's PetNameTrainingJob
// spec (sweep::ApplyAssignment of the sweep's template) mapped to the trainer's flags, as the
// operator maps a job to its rank pods, with every rank on this machine. Pure.
//
//   replicas x resources.processesPerReplica (default: gpusPerReplica when > 0, else 1)
//                                    -> --nproc (all ranks on this machine)
//   resources.gpusPerReplica > 0     -> --device cuda
//   training.batchSizePerReplica     -> --batch-size (per rank)
//   training.learningRate, epochs, precision, warmupSteps, lrSchedule, seed,
//   validationFraction               -> --lr, --epochs, --precision, --warmup-steps,
//                                       --lr-schedule, --seed, --validation-fraction
//   training.deterministic: true     -> --deterministic
//   dataset.maxNames, dataset.column -> --max-names, --column
//   the objective with a goal        -> --goal METRIC=VALUE (+ --stop-at-goal)
// Fields left out take the trainer's defaults.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "common/sweep/spec.h"

namespace petname::sweep {

struct TrialRun {
  std::string trial_dir;  // --checkpoint-dir; summary.json is written inside
  std::string data;       // --data; empty: the trainer's default
  int cpu_budget = 1;     // CPUs of this machine for all trials (launch/cpu_budget.h)
  int parallel = 1;       // trials running at once
};

struct TrialCommand {
  std::vector<std::string> args;  // after the executable: "train", "--nproc", ...
  int ranks = 1;
  int64_t batch_size_per_rank = 0;
  bool gpu = false;  // --device cuda: rank k uses cuda:k, so the trial needs `ranks` GPUs
};

// The trial's command line. Each rank gets --threads max(1, cpu_budget / (parallel x ranks)).
// With `resume`, --resume. InvalidArgument names a job-spec field of the wrong type or out of
// range.
Status TrialTrainArgs(const nlohmann::json& job_spec, const SweepSpec& spec, const TrialRun& run,
                      bool resume, TrialCommand* out);

// Threads of each rank: max(1, cpu_budget / (parallel x ranks)).
int ThreadsPerRank(int cpu_budget, int parallel, int ranks);

// The summary file inside a trial's directory.
inline constexpr char kTrialSummaryName[] = "summary.json";
// The trial process's stdout and stderr, inside its directory.
inline constexpr char kTrialLogName[] = "train.log";

}  // namespace petname::sweep
