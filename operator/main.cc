// petname-operator: reconciles PetNameTrainingJobs into rank pods plus a headless
// Service. Configuration: --kubeconfig, else $KUBECONFIG, else the in-cluster service account,
// else ~/.kube/config. Stops cleanly on SIGTERM/SIGINT (releasing the leader lease when held).
// Exit codes: 0 after a clean stop, 2 for bad flags or configuration, 1 when it cannot start or
// when it lost the leader lease (so that no two replicas ever reconcile at once).
//
// main only wires the parts together: options (app/options.h), what the process learns from
// where it runs (app/environment.h), logging, signals, and the Manager (app/manager.h).
#include <malloc.h>
#include <signal.h>

#include <iostream>
#include <optional>
#include <utility>

#include <pplx/threadpool.h>
#include <spdlog/spdlog.h>

#include "common/status.h"
#include "operator/app/environment.h"
#include "operator/app/manager.h"
#include "operator/app/options.h"
#include "operator/logging/logging.h"

namespace petname {
namespace {

int Fail(const Status& s, int exit_code) {
  std::cerr << "petname-operator: " << s.message() << "\n";
  return exit_code;
}

int Run(int argc, char** argv) {
  app::Options options;
  if (std::optional<int> exit_code =
          app::ParseOptions(argc, argv, &options, std::cout, std::cerr)) {
    return *exit_code;
  }
  app::Settings settings;
  Status s = app::ResolveOptions(options, app::ReadSurroundings(), &settings);
  if (!s.ok()) return Fail(s, 2);
  logging::Install(settings.log_format, options.log_level);

  kube::RestConfig config;
  s = app::LoadRestConfig(options, &config);
  if (!s.ok()) return Fail(s, s.code() == Status::Code::kNotFound ? 2 : s.ExitCode());
  s = app::LoadKueueConfig(options, &settings.kueue);
  if (!s.ok()) return Fail(s, 2);
  // SIGTERM/SIGINT are taken by sigwait below; block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Memory: few malloc arenas and a small cpprestsdk pool (its I/O is asynchronous; the
  // default of 40 threads only adds stacks and arenas). Blocks of 128 KiB and more (list pages,
  // bulky objects on their way to the cache) are mapped and given back when freed, instead of
  // staying in the arenas as glibc's moving threshold would keep them after the first one.
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  crossplat::threadpool::initialize_with_threads(4);
  app::Manager manager(std::move(options), settings, std::move(config));
  s = manager.Start();
  if (!s.ok()) return Fail(s, s.ExitCode());
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("signal {}: shutting down", sig);
  manager.Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace petname

int main(int argc, char** argv) { return petname::Run(argc, argv); }
