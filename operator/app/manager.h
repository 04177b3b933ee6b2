// Manager: the operator's running parts wired together, like controller-runtime's manager: the
// API client (and, with leader election, a Lease client of its own), the controller with its
// caches and reconcile workers, the progress scraper, the /healthz, /readyz and /metrics
// endpoints, and the leader elector. Start() brings them up in that order and returns; the
// workers and the scraper run only while this replica leads (at once without --leader-elect).
// A replica that loses the Lease exits the process at once with code 1, as controller-runtime's
// does, so that no two replicas ever reconcile at once. Stop() takes everything down for a clean
// exit and releases the Lease.
#pragma once

#include <memory>
#include <thread>

#include "common/status.h"
#include "operator/app/options.h"
#include "operator/endpoints.h"
#include "operator/jobs/controller.h"
#include "operator/kube/leader_election.h"
#include "operator/kube/rest_client.h"
#include "operator/kube/rest_config.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/progress/progress_scraper.h"
#include "operator/progress/progress_store.h"
#include "operator/sweeps/sweep_controller.h"

namespace petname::app {

class Manager {
 public:
  Manager(Options options, Settings settings, kube::RestConfig config);

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Fails, before anything reconciles, when a client cannot be made or an endpoint cannot
  // listen; destroying the Manager then closes what was opened.
  Status Start();
  // After a successful Start(): stops the election, the endpoints, the scraper, the client and
  // the controller, in that order, then releases the Lease.
  void Stop();

 private:
  Status MakeClients();
  void MakeController();
  Status StartEndpoints();
  void Lead();

  const Options options_;
  const Settings settings_;
  const kube::RestConfig config_;
  operator_metrics::OperatorMetrics metrics_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<kube::RestClient> lease_client_;
  std::unique_ptr<kube::LeaderElector> elector_;
  progress::ProgressStore progress_store_;
  std::unique_ptr<controller::Controller> controller_;
  std::unique_ptr<controller::SweepController> sweep_controller_;
  std::unique_ptr<progress::ProgressScraper> scraper_;
  std::unique_ptr<HttpServer> health_;
  std::unique_ptr<HttpServer> metrics_endpoint_;
  std::thread election_thread_;
};

}  // namespace petname::app
