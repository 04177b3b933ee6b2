// The `petname sweep` and `petname report` subcommands: their flags and what they run.
//
//   petname sweep --config FILE --dir DIR [--parallel K] [--data PATH]
//     exit 0 when the sweep Succeeded, 1 when it Failed or was interrupted, 2 for a bad file
//     or more GPU trials at once than the GPUs (torch::cuda::device_count()) hold.
//   petname report --checkpoint DIR [--output FILE]   one run's loss curves (loss.svg)
//   petname report --sweep DIR [--output-dir D]       a sweep's sweep.svg and report.html
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "trainer/sweep/runner.h"

namespace petname::cli {

struct ReportFlags {
  std::string checkpoint_dir;
  std::string output;  // default CHECKPOINT_DIR/loss.svg
  std::string sweep_dir;
  std::string output_dir;  // default SWEEP_DIR
};

CLI::App* AddSweepCommand(CLI::App* app, sweep::SweepRunOptions* options);
CLI::App* AddReportCommand(CLI::App* app, ReportFlags* flags);

// Sets *exit_code to 1 when the sweep Failed.
Status RunSweepCommand(const sweep::SweepRunOptions& options, int* exit_code);
Status RunReportCommand(const ReportFlags& flags);

}  // namespace petname::cli
