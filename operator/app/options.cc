#include "operator/app/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "operator/kube/lease.h"

namespace petname::app {
namespace {

void AddOptions(CLI::App* app, Options* o) {
  app->add_option("--kubeconfig", o->kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app->add_option("--context", o->context, "kubeconfig context (default: current-context)");
  app->add_option("--namespace", o->ns, "namespace to watch (default: all)");
  app->add_option("--workers", o->workers, "concurrent reconciles")->check(CLI::Range(1, 256));
  app->add_option("--qps", o->qps, "client-side requests per second (default 0: no limit)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--burst", o->burst, "client-side request burst")->check(CLI::Range(1, 1000000));
  app->add_option("--metrics-bind-address", o->metrics_bind,
                  "HOST:PORT for /metrics, 0 to disable");
  app->add_option("--health-probe-bind-address", o->health_bind,
                  "HOST:PORT for /healthz and /readyz, 0 to disable");
  app->add_option("--log-level", o->log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app->add_option("--log-format", o->log_format, "text or json (one object per line)")
      ->check(CLI::IsMember({"text", "json"}));
  app->add_flag("--leader-elect", o->leader_elect,
                "reconcile only while holding a coordination.k8s.io Lease (for replicas > 1)");
  app->add_option("--leader-elect-lease-duration", o->lease_duration,
                  "how long a standby waits after the last renewal before taking over");
  app->add_option("--leader-elect-renew-deadline", o->renew_deadline,
                  "how long the leader retries renewing before it gives up and exits");
  app->add_option("--leader-elect-retry-period", o->retry_period,
                  "time between attempts to acquire or renew");
  app->add_option("--leader-elect-namespace", o->lease_namespace,
                  "namespace of the Lease (default: the pod's namespace, else --namespace)");
  app->add_option("--leader-elect-id", o->lease_id, "name of the Lease");
  app->add_flag("--kueue", o->kueue,
                "integrate with Kueue: a job labelled kueue.x-k8s.io/queue-name gets a Workload "
                "and starts only once Kueue admits it");
  app->add_option("--kueue-config", o->kueue_config,
                  "Kueue's Configuration file (config.kueue.x-k8s.io): its "
                  "manageJobsWithoutQueueName, managedJobsNamespaceSelector and "
                  "integrations.labelKeysToCopy apply to the jobs as to Kueue's own (default: "
                  "Kueue's defaults)");
  app->add_option("--max-pods-per-sweep", o->max_pods_per_sweep,
                  "refuse (phase Failed, reason TooManyPods) a sweep whose parallel trials could "
                  "run more pods at once")
      ->check(CLI::Range(1, 1000000));
  app->add_option("--progress-interval", o->progress_interval,
                  "how often rank 0's /metrics of each Running job is read into status.progress "
                  "(e.g. 15s; 0 disables)");
  const progress::ScrapeLimits scrape;
  app->add_option("--progress-timeout", o->progress_timeout,
                  "how long one read of a /metrics may take in all, at most the interval "
                  "(default " +
                      std::to_string(scrape.get.timeout.count()) + "ms)");
  app->add_option("--progress-max-bytes", o->progress_max_bytes,
                  "the largest /metrics body the operator reads; a larger one is not read")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app->add_flag("--network-policy,!--no-network-policy", o->network_policy,
                "create a NetworkPolicy per job that admits only the job's own pods, and the "
                "--network-policy-metrics-from peers to its metrics ports (default: on)");
  app->add_option("--network-policy-metrics-from", o->network_policy_metrics_from,
                  "JSON list of NetworkPolicyPeers that may reach the rank pods' metrics ports "
                  "(the operator's pods, Prometheus; default [] : only the job's own pods)");
}

Status LeaderElection(const Options& o, const Surroundings& where,
                      kube::LeaderElectionConfig* out) {
  out->name = o.lease_id;
  out->ns = o.lease_namespace;
  if (out->ns.empty()) out->ns = where.pod_namespace;
  if (out->ns.empty()) out->ns = o.ns;
  if (out->ns.empty()) {
    return Status::InvalidArgument(
        "--leader-elect needs --leader-elect-namespace outside a cluster when watching all "
        "namespaces");
  }
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(o.lease_duration, &out->lease_duration));
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(o.renew_deadline, &out->renew_deadline));
  PETNAME_RETURN_IF_ERROR(kube::ParseDuration(o.retry_period, &out->retry_period));
  out->identity = where.identity;
  return kube::CheckLeaderElectionConfig(*out);
}

}  // namespace

std::optional<int> ParseOptions(int argc, const char* const* argv, Options* options,
                                std::ostream& out, std::ostream& err) {
  CLI::App app{"petname-operator: runs PetNameTrainingJobs as rank pods"};
  AddOptions(&app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "petname-operator: " << e.what() << "\n";
    return 2;
  }
  return std::nullopt;
}

Status ResolveOptions(const Options& options, const Surroundings& where, Settings* out) {
  PETNAME_RETURN_IF_ERROR(logging::ParseFormat(options.log_format, &out->log_format));
  out->progress_interval = std::chrono::milliseconds(0);
  if (options.progress_interval != "0") {
    PETNAME_RETURN_IF_ERROR(
        kube::ParseDuration(options.progress_interval, &out->progress_interval));
  }
  out->progress_limits = progress::ScrapeLimits{};
  if (!options.progress_timeout.empty()) {
    Status s = kube::ParseDuration(options.progress_timeout, &out->progress_limits.get.timeout);
    if (!s.ok()) return Status::InvalidArgument("--progress-timeout: " + s.message());
  }
  if (out->progress_interval.count() > 0) {
    out->progress_limits.get.timeout =
        std::min(out->progress_limits.get.timeout, out->progress_interval);
  }
  if (options.progress_max_bytes < 1) {
    return Status::InvalidArgument("--progress-max-bytes " +
                                   std::to_string(options.progress_max_bytes) +
                                   ": must be positive");
  }
  out->progress_limits.get.max_body_bytes = static_cast<size_t>(options.progress_max_bytes);
  if (options.leader_elect) PETNAME_RETURN_IF_ERROR(LeaderElection(options, where, &out->election));
  out->network_policy.enabled = options.network_policy;
  const nlohmann::json peers = nlohmann::json::parse(options.network_policy_metrics_from, nullptr,
                                                     /*allow_exceptions=*/false);
  const bool objects =
      peers.is_array() && std::all_of(peers.begin(), peers.end(),
                                      [](const auto& p) { return p.is_object() && !p.empty(); });
  if (!objects) {
    return Status::InvalidArgument(
        "--network-policy-metrics-from must be a JSON list of NetworkPolicyPeer objects (e.g. "
        "[{\"namespaceSelector\": {...}, \"podSelector\": {...}}]), not '" +
        options.network_policy_metrics_from + "'");
  }
  out->network_policy.metrics_from = peers;
  return Status::Ok();
}

}  // namespace petname::app
