#include "trainer/cli/export_cli.h"

#include <cstdio>
#include <vector>

#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/export/export.h"

namespace petname::cli {

CLI::App* AddExportCommand(CLI::App* app, ExportFlags* flags) {
  CLI::App* cmd = app->add_subcommand(
      "export", "Write a checkpoint's model as safetensors for the PyTorch recipe's model.");
  cmd->add_option("--checkpoint", flags->checkpoint,
                  "Checkpoint directory, a file in one, or a --checkpoint-dir (newest valid)")
      ->required();
  cmd->add_option("--output", flags->output, "The .safetensors file to write")->required();
  return cmd;
}

Status RunExportCommand(const ExportFlags& flags) {
  std::string key;
  PETNAME_RETURN_IF_ERROR(checkpoint::CheckpointKeyFromEnvironment(dist::ProcessEnv(), &key));
  std::vector<std::string> skipped;
  std::string source;
  Status st = exporter::ExportCheckpoint(flags.checkpoint, flags.output, key, &skipped, &source);
  for (const std::string& s : skipped) {
    std::fprintf(stderr, "petname: warning: skipping damaged checkpoint: %s\n", s.c_str());
  }
  if (!st.ok()) return st;
  std::fprintf(stderr, "petname: %s\n", source.c_str());
  std::printf("%s\n", flags.output.c_str());
  return st;
}

}  // namespace petname::cli
