// `petname sweep`: runs a sweep's trials on this machine, each as a `petname train` child
// process (trial_args.h), at most `parallel` at a time, and keeps DIR/sweep.json
// (sweep_status.h) current after every change.
//
//  - Before anything is written, the file, the spec and every trial's flags are checked: a
//    bad sweep is InvalidArgument and leaves no DIR/sweep.json.
//  - Trial i lives in DIR/<sweep>-<iii>/: checkpoints, metrics.jsonl, summary.json and
//    train.log (the child's stdout and stderr). A trial whose summary.json exists, or that
//    sweep.json says median stopping Stopped, is finished and is not run again; the others
//    start with --resume.
//  - Every running trial's metrics.jsonl is read while it runs; median stopping (when the
//    spec asks for it) SIGTERMs a trial that falls behind (phase Stopped).
//  - GPU trials (resources.gpusPerReplica > 0) each get GPUs of their own (trial_gpus.h): a
//    trial's process sees only its slot's GPUs through CUDA_VISIBLE_DEVICES. Without
//    --parallel no more GPU trials run at once than the GPUs hold; a --parallel above that, or
//    GPUs that hold no trial, is InvalidArgument before anything is written.
//  - SIGINT or SIGTERM stops every trial (each saves a checkpoint) and RunSweep returns
//    kUnavailable; the same command later resumes them.
//  - One line per trial start and end, and a final table, on stdout.
#pragma once

#include <functional>
#include <string>

#include "common/status.h"
#include "common/sweep/trials.h"

namespace petname::sweep {

struct SweepRunOptions {
  std::string config;  // the YAML file (sweep_file.h)
  std::string dir;
  int parallel = 0;  // 0: the spec's parallelTrialCount
  std::string data;  // overrides the file's data: when not empty
  std::string executable = "/proc/self/exe";
  // The GPUs CUDA sees (torch::cuda::device_count()); asked only when a trial needs GPUs.
  std::function<int()> count_gpus = [] { return 0; };
};

// Runs the sweep to its end; *phase is Succeeded or Failed when it returns OK.
Status RunSweep(const SweepRunOptions& options, SweepPhase* phase);

}  // namespace petname::sweep
