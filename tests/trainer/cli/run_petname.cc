#include "tests/trainer/cli/run_petname.h"
#include "tests/support/test_paths.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/file_util.h"

namespace petname::testing {

namespace {

RunResult Run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
              bool unprivileged) {
  TempDir io;
  const std::string out_path = io.Join("out");
  const std::string err_path = io.Join("err");
  std::vector<char*> argv;
  const char* other = ::getenv("PETNAME_TEST_BIN");
  std::string bin = other != nullptr && *other != '\0' ? other : PetnameBin();
  argv.push_back(bin.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);

  RunResult r;
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    if (unprivileged &&
        (::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE) != 0 ||
         ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH) != 0) &&
        errno != EPERM) {
      ::_exit(126);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  r.max_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  ReadFile(out_path, &r.out);
  ReadFile(err_path, &r.err);
  return r;
}

}  // namespace

RunResult RunPetname(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env) {
  return Run(args, env, false);
}

RunResult RunPetnameUnprivileged(const std::vector<std::string>& args) {
  return Run(args, {}, true);
}

}  // namespace petname::testing

namespace petname::testing {

std::vector<std::string> SmallTrainArgs(int epochs, const std::string& checkpoint_dir) {
  std::vector<std::string> args = {"train", "--data", TestData(), "--max-names", "200"};
  args.insert(args.end(), {"--threads", "1", "--batch-size", "128"});
  args.insert(args.end(), {"--epochs", std::to_string(epochs)});
  if (!checkpoint_dir.empty()) {
    args.insert(args.end(), {"--checkpoint-dir", checkpoint_dir, "--keep", "5"});
  }
  return args;
}

}  // namespace petname::testing
