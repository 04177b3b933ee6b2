// The petname-operator command line: its flags (controller-runtime's names where one exists),
// what they mean once checked, and the usage errors (exit 2). Pure: no files, network or clock;
// what the defaults take from where the operator runs comes in as Surroundings.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "common/status.h"
#include "operator/jobs/network_policy.h"
#include "operator/kube/leader_election.h"
#include "operator/kueue/kueue_config.h"
#include "operator/logging/logging.h"
#include "operator/progress/progress_scraper.h"
#include "operator/sweeps/sweep_desired.h"

namespace petname::app {

struct Options {
  std::string kubeconfig;
  std::string context;
  std::string ns;  // "" = all namespaces
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
  // A sweep whose trials could run more pods at once is refused (phase Failed, TooManyPods).
  int max_pods_per_sweep = controller::kDefaultMaxPodsPerSweep;
  std::string progress_timeout;  // "": progress::ScrapeLimits' default
  bool kueue = false;        // jobs labelled kueue.x-k8s.io/queue-name wait for Kueue's admission
  std::string kueue_config;  // Kueue's Configuration file ("": Kueue's defaults)
  int64_t progress_max_bytes = static_cast<int64_t>(progress::ScrapeLimits{}.get.max_body_bytes);
  // A NetworkPolicy per job (jobs/network_policy.h); --no-network-policy turns it off.
  bool network_policy = true;
  // The NetworkPolicyPeers admitted to the rank pods' metrics ports, as a JSON list (the chart
  // passes the operator's pods and Prometheus); "[]": only the job's own pods.
  std::string network_policy_metrics_from = "[]";
};

// Parses the command line into *options. Returns the exit code when the process should stop
// now: 0 after writing the --help text to `out`, 2 after writing a usage error to `err` as one
// line "petname-operator: <what>"; nullopt to go on.
std::optional<int> ParseOptions(int argc, const char* const* argv, Options* options,
                                std::ostream& out, std::ostream& err);

// Where the operator runs, as far as the defaults of the options depend on it.
struct Surroundings {
  std::string pod_namespace;  // the namespace of the operator's own pod; "" outside a cluster
  std::string identity;       // a Lease holder identity unique to this process
};

// What the options mean, checked before anything starts.
struct Settings {
  logging::Format log_format = logging::Format::kText;
  std::chrono::milliseconds progress_interval{0};  // 0: no progress scraping
  progress::ScrapeLimits progress_limits;          // its timeout at most progress_interval
  kube::LeaderElectionConfig election;             // with --leader-elect only
  controller::NetworkPolicyOptions network_policy;
  controller::KueueConfig kueue;  // --kueue-config, read by LoadKueueConfig (app/environment.h)
};

// InvalidArgument (a usage error, exit 2) naming the bad --progress-interval, --progress-timeout,
// --network-policy-metrics-from (not a JSON list of objects) or leader-election setting. The
// Lease's namespace is --leader-elect-namespace, else the pod's, else --namespace; outside a
// cluster and watching all namespaces there is none.
Status ResolveOptions(const Options& options, const Surroundings& where, Settings* out);

}  // namespace petname::app
