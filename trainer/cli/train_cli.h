// The `petname train` subcommand: its flags (environment defaults included) and their checks,
// and the run: this process as one rank (trainer/train/train.h), or with --nproc N > 1 the
// launcher of N local ranks (dist_flags.h). Exit codes and messages: cli.h.
//
//   petname train [--data PATH] [--column NAME] [--epochs N] ... (see --help)
//     Defaults from the environment: PETNAME_DATA (--data), PETNAME_KATIB_METRICS_FILE,
//     PETNAME_METRICS_PORT and PETNAME_METRICS_ADDRESS. The rank's metrics are labelled with
//     PETNAME_JOB_NAME, PETNAME_NAMESPACE and PETNAME_SWEEP_NAME when set.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "trainer/cli/dist_flags.h"
#include "trainer/cli/logs_cli.h"
#include "trainer/cli/owner_flags.h"
#include "trainer/data/data_file.h"
#include "trainer/data/dataset.h"
#include "trainer/train/defaults.h"
#include "trainer/train/train.h"

namespace petname::cli {

struct TrainFlags {
  std::string data;
  std::string column;
  size_t max_names = 0;
  int64_t max_data_bytes = data::kDefaultMaxDataBytes;
  double validation_fraction = data::EncodeOptions{}.validation_fraction;
  std::string precision = train::kDefaultPrecision;
  std::string lstm_impl = "auto";
  bool no_tf32 = false;
  std::string lr_schedule = train::kDefaultLrSchedule;
  std::string summary_json;
  std::string termination_log;  // rank 0's progress series when training ends
  int metrics_port = 0;         // 0: no /metrics
  std::string metrics_address = "0.0.0.0";
  Status metrics_env;                     // whether $PETNAME_METRICS_PORT parsed
  CLI::Option* threads_option = nullptr;  // --threads, given when counted
  std::string goal;                       // --goal METRIC=VALUE
  DistFlags dist;
  OwnerFlags owner;
  RankLogFlags logs;
  train::TrainOptions options;
};

CLI::App* AddTrainCommand(CLI::App* app, TrainFlags* flags);

// Sets *exit_code for outcomes that are not errors: a preempted rank (dist::kExitPreempted)
// or the local launcher's result; and for an unusable checkpoint directory, which fails
// with kExitCheckpointDirUnusable instead of 1.
Status RunTrainCommand(TrainFlags flags, int argc, char** argv, int* exit_code);

}  // namespace petname::cli
