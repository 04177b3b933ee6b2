// petname-operator: reconciles PetNameTrainingJobs into rank pods plus a headless
// Service. Configuration: --kubeconfig, else $KUBECONFIG, else the in-cluster service account,
// else ~/.kube/config. Stops cleanly on SIGTERM/SIGINT (releasing the leader lease when held).
// Exit codes: 0 after a clean stop, 2 for bad flags or configuration, 1 when it cannot start or
// when it lost the leader lease (so that no two replicas ever reconcile at once).
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include <pplx/threadpool.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "common/file_util.h"
#include "operator/controller/controller.h"
#include "operator/endpoints.h"
#include "operator/kube/leader_election.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/rest_config.h"
#include "operator/logging/logging.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/progress/progress_scraper.h"
#include "operator/progress/progress_store.h"

namespace petname {
namespace {

struct Flags {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  int workers = 4;
  // No client-side limit by default: the API server's Priority and Fairness does flow
  // control, as controller-runtime >= 0.21 assumes; at most 16 creates per reconcile are in
  // flight anyway. --qps/--burst set a token bucket for clusters that want one.
  double qps = 0;
  int burst = 30;
  std::string metrics_bind = ":8080";
  std::string health_bind = ":8081";
  std::string log_level = "info";
  std::string log_format = "text";
  bool leader_elect = false;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string lease_namespace;
  std::string lease_id = "petname-operator";
  std::string progress_interval = "15s";
};

constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

// The leader-election settings from the flags; the lease namespace defaults to the pod's own
// (in-cluster), else --namespace.
Status LeaderElectionFromFlags(const Flags& f, kube::LeaderElectionConfig* out) {
  out->name = f.lease_id;
  out->ns = f.lease_namespace;
  if (out->ns.empty()) {
    std::string pod_ns;
    if (ReadFile(std::string(kServiceAccountDir) + "/namespace", &pod_ns).ok()) out->ns = pod_ns;
  }
  if (out->ns.empty()) out->ns = f.ns;
  if (out->ns.empty()) {
    return Status::InvalidArgument(
        "--leader-elect needs --leader-elect-namespace outside a cluster when watching all "
        "namespaces");
  }
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(f.lease_duration, &out->lease_duration));
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(f.renew_deadline, &out->renew_deadline));
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(f.retry_period, &out->retry_period));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  out->identity = std::string(host) + "_" + logging::RandomUuid();
  return kube::CheckLeaderElectionConfig(*out);
}

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

int Run(int argc, char** argv) {
  Flags f;
  CLI::App app{"petname-operator: runs PetNameTrainingJobs as rank pods"};
  app.add_option("--kubeconfig", f.kubeconfig,
                 "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)");
  app.add_option("--namespace", f.ns, "namespace to watch (default: all)");
  app.add_option("--workers", f.workers, "concurrent reconciles")->check(CLI::Range(1, 256));
  app.add_option("--qps", f.qps, "client-side requests per second (default 0: no limit)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--burst", f.burst, "client-side request burst")->check(CLI::Range(1, 1000000));
  app.add_option("--metrics-bind-address", f.metrics_bind, "HOST:PORT for /metrics, 0 to disable");
  app.add_option("--health-probe-bind-address", f.health_bind,
                 "HOST:PORT for /healthz and /readyz, 0 to disable");
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_option("--log-format", f.log_format, "text or json (one object per line)")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--leader-elect", f.leader_elect,
               "reconcile only while holding a coordination.k8s.io Lease (for replicas > 1)");
  app.add_option("--leader-elect-lease-duration", f.lease_duration,
                 "how long a standby waits after the last renewal before taking over");
  app.add_option("--leader-elect-renew-deadline", f.renew_deadline,
                 "how long the leader retries renewing before it gives up and exits");
  app.add_option("--leader-elect-retry-period", f.retry_period,
                 "time between attempts to acquire or renew");
  app.add_option("--leader-elect-namespace", f.lease_namespace,
                 "namespace of the Lease (default: the pod's namespace, else --namespace)");
  app.add_option("--leader-elect-id", f.lease_id, "name of the Lease");
  app.add_option("--progress-interval", f.progress_interval,
                 "how often rank 0's /metrics of each Running job is read into status.progress "
                 "(e.g. 15s; 0 disables)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "petname-operator: " << e.what() << "\n";
    return 2;
  }
  logging::Format format;
  Status s = logging::ParseFormat(f.log_format, &format);
  std::chrono::milliseconds progress_interval{0};
  if (s.ok() && f.progress_interval != "0") {
    s = kube::ParseDuration(f.progress_interval, &progress_interval);
  }
  kube::LeaderElectionConfig election;
  if (s.ok() && f.leader_elect) s = LeaderElectionFromFlags(f, &election);
  if (!s.ok()) {
    std::cerr << "petname-operator: " << s.message() << "\n";
    return 2;
  }
  logging::Install(format, f.log_level);

  kube::RestConfig cfg;
  s = LoadConfig(f, &cfg);
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

  // Memory: few malloc arenas and a small cpprestsdk pool (its I/O is asynchronous; the
  // default of 40 threads only adds stacks and arenas).
  mallopt(M_ARENA_MAX, 2);
  crossplat::threadpool::initialize_with_threads(4);
  operator_metrics::OperatorMetrics op_metrics;
  kube::ClientOptions opts;
  opts.qps = f.qps;
  opts.burst = f.burst;
  opts.on_request = [&op_metrics](const std::string& verb, const std::string& host, int code,
                                  double seconds) {
    op_metrics.ObserveApiRequest(verb, host, code, seconds);
  };
  std::unique_ptr<kube::RestClient> client;
  s = kube::RestClient::Create(cfg, opts, &client);
  // Lease requests get a client of their own: no retries, and no attempt outlives a retry
  // period, so a renewal never runs past the renew deadline.
  std::unique_ptr<kube::RestClient> lease_client;
  std::unique_ptr<kube::LeaderElector> elector;
  if (s.ok() && f.leader_elect) {
    kube::ClientOptions lease_opts;
    lease_opts.qps = 0;
    lease_opts.max_retries = 0;
    lease_opts.request_timeout =
        std::chrono::seconds(std::max<int64_t>(1, (election.retry_period.count() + 999) / 1000));
    lease_opts.on_request = opts.on_request;
    s = kube::RestClient::Create(cfg, lease_opts, &lease_client);
    if (s.ok()) elector = std::make_unique<kube::LeaderElector>(lease_client.get(), election);
  }
  if (!s.ok()) {
    std::cerr << "petname-operator: " << s.message() << "\n";
    return s.ExitCode();
  }
  progress::ProgressStore progress_store;
  controller::Controller ctrl(client.get(), {f.ns, f.workers, &op_metrics, &progress_store});
  op_metrics.SetSources({[&ctrl] { return ctrl.queue_stats(); }, [&ctrl] { return ctrl.lists(); },
                         [&ctrl] { return ctrl.JobsByPhase(); },
                         [&elector] { return elector == nullptr || elector->is_leader(); }});
  std::unique_ptr<progress::ProgressScraper> scraper;
  if (progress_interval.count() > 0) {
    scraper = std::make_unique<progress::ProgressScraper>(
        &progress_store,
        progress::ScraperSources{[&ctrl] { return ctrl.ProgressTargets(); },
                                 [&ctrl] { return ctrl.JobKeys(); },
                                 [&ctrl](const std::string& key) { ctrl.Enqueue(key); }},
        progress_interval,
        std::min<std::chrono::milliseconds>(progress_interval, std::chrono::seconds(5)));
  }
  Endpoint health, metrics;
  s = health.Start(f.health_bind,
                   {{"/healthz", [] { return std::make_pair(200, std::string("ok\n")); }},
                    {"/readyz", [&ctrl] {
                       return ctrl.Synced() ? std::make_pair(200, std::string("ok\n"))
                                            : std::make_pair(503, std::string("caches syncing\n"));
                     }}});
  if (s.ok()) {
    s = metrics.Start(
        f.metrics_bind,
        {{"/metrics", [&op_metrics] { return std::make_pair(200, op_metrics.Text()); }}});
  }
  if (!s.ok()) {
    std::cerr << "petname-operator: " << s.message() << "\n";
    return s.ExitCode();
  }
  spdlog::info("petname-operator {} watching {} on {} (workers {}, qps {}, burst {})",
               PETNAME_VERSION, f.ns.empty() ? "all namespaces" : "namespace " + f.ns, cfg.server,
               f.workers, f.qps, f.burst);
  ctrl.Start();
  auto lead = [&ctrl, &scraper] {
    ctrl.StartWorkers();
    if (scraper != nullptr) scraper->Start();
  };
  std::thread election_thread;
  if (elector != nullptr) {
    election_thread = std::thread([&elector, &lead] {
      if (!elector->Acquire()) return;
      lead();
      elector->StartRenewing([] {
        // Exit at once, as controller-runtime does: a replica that lost the lease must not
        // reconcile another step.
        spdlog::error("leader election lost: exiting");
        std::_Exit(1);
      });
    });
  } else {
    lead();
  }
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("signal {}: shutting down", sig);
  if (elector != nullptr) elector->Stop();
  if (election_thread.joinable()) election_thread.join();
  health.Stop();
  metrics.Stop();
  if (scraper != nullptr) scraper->Stop();
  client->Shutdown();
  ctrl.Stop();
  if (elector != nullptr) elector->Release();
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace petname

int main(int argc, char** argv) { return petname::Run(argc, argv); }
