#include "trainer/cli/cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "trainer/checkpoint/manifest_mac.h"
#include "trainer/cli/convert_cli.h"
#include "trainer/cli/export_cli.h"
#include "trainer/cli/fetch_cli.h"
#include "trainer/cli/flag_checks.h"
#include "trainer/cli/logs_cli.h"
#include "trainer/cli/sweep_cli.h"
#include "trainer/cli/train_cli.h"
#include "trainer/cli/version_line.h"
#include "trainer/data/names.h"
#include "trainer/distributed/rank_env.h"
#include "trainer/generate/generate.h"

namespace petname::cli {
namespace {

Status RunGenerate(generate::GenerateOptions o) {
  PETNAME_RETURN_IF_ERROR(Positive("--count", static_cast<double>(o.count)));
  PETNAME_RETURN_IF_ERROR(Positive("--temperature", o.temperature));
  std::string prefix;
  bool empty = false;
  if (!o.prefix.empty() && !data::CleanName(o.prefix, &prefix, &empty)) {
    return Status::InvalidArgument("--prefix may only use letters, '-', '.' and spaces");
  }
  o.prefix = prefix;
  PETNAME_RETURN_IF_ERROR(
      checkpoint::CheckpointKeyFromEnvironment(dist::ProcessEnv(), &o.checkpoint_key));
  std::vector<std::string> names;
  std::vector<std::string> warnings;
  std::string source;
  Status st = generate::Generate(o, &names, &warnings, &source);
  for (const std::string& w : warnings) {
    std::fprintf(stderr, "petname: warning: skipping damaged checkpoint: %s\n", w.c_str());
  }
  if (st.ok()) std::fprintf(stderr, "petname: %s\n", source.c_str());
  for (const std::string& n : names) std::printf("%s\n", n.c_str());
  return st;
}

// Prints `st` as the one error line; returns `exit_code` when set, else st's exit code.
int Fail(const Status& st, int exit_code) {
  std::string line = st.message();
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "petname: error: %s\n", line.c_str());
  return exit_code != 0 ? exit_code : st.ExitCode();
}

CLI::App* AddGenerateCommand(CLI::App* app, generate::GenerateOptions* g) {
  CLI::App* gen = app->add_subcommand("generate", "Print names sampled from a checkpoint.");
  gen->add_option("--checkpoint", g->checkpoint,
                  "Checkpoint directory, a file in one, or a --checkpoint-dir")
      ->required();
  gen->add_option("--count", g->count, "How many names")->capture_default_str();
  gen->add_option("--temperature", g->temperature, "Sampling temperature (> 0)")
      ->capture_default_str();
  gen->add_option("--seed", g->seed, "Seed for sampling")->capture_default_str();
  gen->add_option("--prefix", g->prefix, "Start every name with this");
  gen->add_flag("--exclude-training-names", g->exclude_training_names,
                "Only print names not in the training split");
  return gen;
}

// Parses the command line into the flags. False when that is all there is to do, with
// *exit_code set: help or the version printed (0), or a usage error (2).
bool Parse(CLI::App* app, int argc, char** argv, int* exit_code) {
  try {
    app->parse(argc, argv);
    return true;
  } catch (const CLI::CallForHelp& e) {
    *exit_code = app->exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    *exit_code = app->exit(e);
  } catch (const CLI::CallForVersion& e) {
    *exit_code = app->exit(e);
  } catch (const CLI::ParseError& e) {
    *exit_code = Fail(Status::InvalidArgument(std::string(e.what()) + " (see petname --help)"), 0);
  }
  return false;
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"petname: trains a character-level LSTM on pet names and invents new ones."};
  app.set_version_flag("--version", VersionLine);
  app.require_subcommand(1);
  // A flag given twice takes its last value, as most Unix tools do, so wrappers (scripts/demo,
  // the launcher) can put defaults first and let the user's arguments override them.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  TrainFlags t;
  CLI::App* train = AddTrainCommand(&app, &t);
  ReportFlags r;
  CLI::App* rep = AddReportCommand(&app, &r);
  sweep::SweepRunOptions sw;
  CLI::App* sweep_cmd = AddSweepCommand(&app, &sw);
  ExportFlags x;
  CLI::App* export_cmd = AddExportCommand(&app, &x);
  FetchFlags fetch_flags;
  CLI::App* fetch_cmd = AddFetchCommand(&app, &fetch_flags);
  LogsFlags logs_flags;
  CLI::App* logs_cmd = AddLogsCommand(&app, &logs_flags);
  ConvertFlags convert_flags;
  CLI::App* convert_cmd = AddConvertCommand(&app, &convert_flags);
  generate::GenerateOptions g;
  AddGenerateCommand(&app, &g);

  int exit_code = 0;
  if (!Parse(&app, argc, argv, &exit_code)) return exit_code;
  Status st = train->parsed()         ? RunTrainCommand(t, argc, argv, &exit_code)
              : rep->parsed()         ? RunReportCommand(r)
              : sweep_cmd->parsed()   ? RunSweepCommand(sw, &exit_code)
              : fetch_cmd->parsed()   ? RunFetchCommand(fetch_flags)
              : logs_cmd->parsed()    ? RunLogsCommand(logs_flags)
              : export_cmd->parsed()  ? RunExportCommand(x)
              : convert_cmd->parsed() ? RunConvertCommand(convert_flags)
                                      : RunGenerate(g);
  return st.ok() ? exit_code : Fail(st, exit_code);
}

}  // namespace petname::cli
