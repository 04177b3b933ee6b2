#include "trainer/cli/sweep_cli.h"

#include <torch/cuda.h>

#include <cstdio>
#include <filesystem>

#include "trainer/report/loss_report.h"
#include "trainer/report/sweep_report.h"

namespace petname::cli {

CLI::App* AddSweepCommand(CLI::App* app, sweep::SweepRunOptions* options) {
  CLI::App* cmd = app->add_subcommand(
      "sweep", "Run a hyper-parameter sweep's trials here, each as a `petname train` process.");
  cmd->add_option("--config", options->config,
                  "YAML: a PetNameTrainingSweep (or its spec), optional top-level data:")
      ->required();
  cmd->add_option("--dir", options->dir,
                  "Sweep directory: DIR/sweep.json and one directory per trial")
      ->required();
  cmd->add_option("--parallel", options->parallel,
                  "Trials at once (default: spec.parallelTrialCount, at most the CPUs). GPU trials "
                  "(gpusPerReplica > 0) get GPUs of their own through CUDA_VISIBLE_DEVICES, R per "
                  "trial of R ranks: by default at most the GPUs / R at once; a larger "
                  "--parallel is refused");
  cmd->add_option("--data", options->data, "Training data of every trial (wins over data:)");
  return cmd;
}

CLI::App* AddReportCommand(CLI::App* app, ReportFlags* flags) {
  CLI::App* cmd = app->add_subcommand(
      "report", "Render a run's loss curves (--checkpoint) or a sweep's comparison (--sweep).");
  cmd->add_option("--checkpoint", flags->checkpoint_dir, "The run's --checkpoint-dir");
  cmd->add_option("--output", flags->output, "SVG file to write (default CHECKPOINT/loss.svg)");
  cmd->add_option("--sweep", flags->sweep_dir,
                  "A `petname sweep --dir`, or a volume of trial checkpoint directories");
  cmd->add_option("--output-dir", flags->output_dir,
                  "Where sweep.svg and report.html go (default the --sweep DIR)");
  return cmd;
}

Status RunSweepCommand(const sweep::SweepRunOptions& options, int* exit_code) {
  sweep::SweepRunOptions run = options;
  run.count_gpus = [] { return static_cast<int>(torch::cuda::device_count()); };
  sweep::SweepPhase phase = sweep::SweepPhase::kFailed;
  PETNAME_RETURN_IF_ERROR(sweep::RunSweep(run, &phase));
  *exit_code = phase == sweep::SweepPhase::kSucceeded ? 0 : 1;
  return Status::Ok();
}

Status RunReportCommand(const ReportFlags& flags) {
  if (flags.checkpoint_dir.empty() == flags.sweep_dir.empty()) {
    return Status::InvalidArgument("report needs exactly one of --checkpoint DIR and --sweep DIR");
  }
  if (!flags.sweep_dir.empty()) {
    const std::string out = flags.output_dir.empty() ? flags.sweep_dir : flags.output_dir;
    std::vector<std::string> written;
    PETNAME_RETURN_IF_ERROR(report::WriteSweepReport(flags.sweep_dir, out, &written));
    for (const std::string& path : written) std::printf("%s\n", path.c_str());
    return Status::Ok();
  }
  const std::string output =
      flags.output.empty() ? (std::filesystem::path(flags.checkpoint_dir) / "loss.svg").string()
                           : flags.output;
  PETNAME_RETURN_IF_ERROR(report::WriteLossReport(flags.checkpoint_dir, output));
  std::printf("%s\n", output.c_str());
  return Status::Ok();
}

}  // namespace petname::cli
