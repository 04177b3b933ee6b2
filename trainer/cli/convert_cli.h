// The `petname convert-checkpoints` subcommand: turns the format-1 checkpoints of a checkpoint
// directory, whose tensor files are TorchScript archives, into format-2 ones once
// (trainer/checkpoint/legacy.h). Converting loads the archives, which runs the code they carry:
// it is a step the user takes on purpose, for a directory nobody else could have written.
//
//   petname convert-checkpoints --checkpoint-dir DIR
//     prints each epoch directory converted on stdout. Where the operator's environment is set
//     (PETNAME_JOB_UID), the converted manifests are signed with the job's secret
//     (trainer/checkpoint/manifest_mac.h). Exit 0 converted; 2 a missing flag; 1 nothing to
//     convert, a damaged checkpoint, or DIR unusable.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"

namespace petname::cli {

struct ConvertFlags {
  std::string checkpoint_dir;
};

CLI::App* AddConvertCommand(CLI::App* app, ConvertFlags* flags);
Status RunConvertCommand(const ConvertFlags& flags);

}  // namespace petname::cli
