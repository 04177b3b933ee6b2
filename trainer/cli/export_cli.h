// The `petname export` subcommand: a checkpoint's model as a safetensors file that the
// original PyTorch recipe's model loads (trainer/export/export.h).
//
//   petname export --checkpoint DIR|FILE --output FILE
//     prints FILE on stdout, and on stderr the checkpoint read, its owner and signature (one
//     line, trainer/checkpoint/manifest_mac.h); a damaged checkpoint skipped on the way is one
//     warning line.
//     Exit 0 written; 2 a missing flag; 1 no usable checkpoint or FILE cannot be written
//     (then FILE is left as it was).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"

namespace petname::cli {

struct ExportFlags {
  std::string checkpoint;
  std::string output;
};

CLI::App* AddExportCommand(CLI::App* app, ExportFlags* flags);
Status RunExportCommand(const ExportFlags& flags);

}  // namespace petname::cli
