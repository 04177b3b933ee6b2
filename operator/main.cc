// petname-operator: reconciles PetNameTrainingJobs into one pod per rank plus a headless
// Service. Configuration: --kubeconfig, else $KUBECONFIG, else the in-cluster service account,
// else ~/.kube/config. Stops cleanly on SIGTERM/SIGINT. Exit codes: 0 after a clean stop,
// 2 for bad flags or configuration, 1 when it cannot start.
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "operator/controller/controller.h"
#include "operator/endpoints.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/rest_config.h"

namespace petname {
namespace {

struct Flags {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  int workers = 4;
  double qps = 20;
  int burst = 30;
  std::string metrics_bind = ":8080";
  std::string health_bind = ":8081";
  std::string log_level = "info";
};

Status LoadConfig(const Flags& f, kube::RestConfig* cfg) {
  std::string path = f.kubeconfig;
  if (path.empty() && std::getenv("KUBECONFIG") != nullptr) path = std::getenv("KUBECONFIG");
  if (!path.empty()) return kube::LoadKubeconfig(path, f.context, cfg);
  Status in_cluster =
      kube::InClusterConfig(std::getenv, "/var/run/secrets/kubernetes.io/serviceaccount", cfg);
  if (in_cluster.code() != Status::Code::kNotFound) return in_cluster;
  const char* home = std::getenv("HOME");
  if (home == nullptr) return Status::InvalidArgument("no kubeconfig: pass --kubeconfig");
  return kube::LoadKubeconfig(std::string(home) + "/.kube/config", f.context, cfg);
}

std::string MetricsText(controller::Controller& c) {
  struct Metric {
    const char* name;
    const char* type;
    const char* help;
    int64_t value;
  };
  const Metric metrics[] = {
      {"petname_operator_reconcile_total", "counter", "Reconciles run.", c.reconciles()},
      {"petname_operator_reconcile_errors_total", "counter",
       "Reconciles that failed and were retried.", c.reconcile_errors()},
      {"petname_operator_workqueue_depth", "gauge", "Keys waiting in the work queue.",
       static_cast<int64_t>(c.queue_depth())},
      {"petname_operator_informer_lists_total", "counter",
       "Full lists by the informers: one each at start, one per 410 relist.", c.lists()},
  };
  std::string out;
  for (const Metric& m : metrics) {
    out += std::string("# HELP ") + m.name + " " + m.help + "\n# TYPE " + m.name + " " + m.type +
           "\n" + m.name + " " + std::to_string(m.value) + "\n";
  }
  return out;
}

int Run(int argc, char** argv) {
  Flags f;
  CLI::App app{"petname-operator: runs PetNameTrainingJobs as one pod per rank"};
  app.add_option("--kubeconfig", f.kubeconfig,
                 "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)");
  app.add_option("--namespace", f.ns, "namespace to watch (default: all)");
  app.add_option("--workers", f.workers, "concurrent reconciles")->check(CLI::Range(1, 256));
  app.add_option("--qps", f.qps, "client-side requests per second (0 lifts the limit)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--burst", f.burst, "client-side request burst")->check(CLI::Range(1, 1000000));
  app.add_option("--metrics-bind-address", f.metrics_bind, "HOST:PORT for /metrics, 0 to disable");
  app.add_option("--health-probe-bind-address", f.health_bind,
                 "HOST:PORT for /healthz and /readyz, 0 to disable");
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "petname-operator: " << e.what() << "\n";
    return 2;
  }
  auto logger = spdlog::stderr_color_mt("operator");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(f.log_level));

  kube::RestConfig cfg;
  Status s = LoadConfig(f, &cfg);
  if (!s.ok()) {
    std::cerr << "petname-operator: " << s.message() << "\n";
    return s.code() == Status::Code::kNotFound ? 2 : s.ExitCode();
  }
  // SIGTERM/SIGINT are taken by sigwait below; block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  kube::ClientOptions opts;
  opts.qps = f.qps;
  opts.burst = f.burst;
  kube::RestClient client(cfg, opts);
  controller::Controller ctrl(&client, {f.ns, f.workers});
  Endpoint health, metrics;
  s = health.Start(f.health_bind,
                   {{"/healthz", [] { return std::make_pair(200, std::string("ok\n")); }},
                    {"/readyz", [&ctrl] {
                       return ctrl.Synced() ? std::make_pair(200, std::string("ok\n"))
                                            : std::make_pair(503, std::string("caches syncing\n"));
                     }}});
  if (s.ok()) {
    s = metrics.Start(f.metrics_bind,
                      {{"/metrics", [&ctrl] { return std::make_pair(200, MetricsText(ctrl)); }}});
  }
  if (!s.ok()) {
    std::cerr << "petname-operator: " << s.message() << "\n";
    return s.ExitCode();
  }
  spdlog::info("petname-operator {} watching {} on {} (workers {}, qps {}, burst {})",
               PETNAME_VERSION, f.ns.empty() ? "all namespaces" : "namespace " + f.ns, cfg.server,
               f.workers, f.qps, f.burst);
  ctrl.Start();
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("signal {}: shutting down", sig);
  health.Stop();
  metrics.Stop();
  client.Shutdown();
  ctrl.Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace petname

int main(int argc, char** argv) { return petname::Run(argc, argv); }
