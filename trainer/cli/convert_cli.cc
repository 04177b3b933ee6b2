#include "trainer/cli/convert_cli.h"

#include <cstdio>
#include <vector>

#include "trainer/checkpoint/legacy.h"
#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/distributed/rank_env.h"

namespace petname::cli {

CLI::App* AddConvertCommand(CLI::App* app, ConvertFlags* flags) {
  CLI::App* cmd = app->add_subcommand(
      "convert-checkpoints",
      "Convert the format-1 (TorchScript) checkpoints of a checkpoint directory once; loading "
      "them runs the code they carry: only for a directory nobody else could write.");
  cmd->add_option("--checkpoint-dir", flags->checkpoint_dir,
                  "The checkpoint directory whose epoch directories are converted")
      ->required();
  return cmd;
}

Status RunConvertCommand(const ConvertFlags& flags) {
  std::string key;
  PETNAME_RETURN_IF_ERROR(checkpoint::CheckpointKeyFromEnvironment(dist::ProcessEnv(), &key));
  std::vector<std::string> converted;
  Status st = checkpoint::ConvertLegacyCheckpoints(flags.checkpoint_dir, key, &converted);
  for (const std::string& dir : converted) std::printf("converted %s\n", dir.c_str());
  return st;
}

}  // namespace petname::cli
