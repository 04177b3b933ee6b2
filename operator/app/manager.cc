#include "operator/app/manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace petname::app {
namespace {

HttpResponse Plain(int code, const char* body) {
  return HttpResponse{code, "text/plain; charset=utf-8", body};
}

}  // namespace

Manager::Manager(Options options, Settings settings, kube::RestConfig config)
    : options_(std::move(options)), settings_(std::move(settings)), config_(std::move(config)) {}

Status Manager::Start() {
  PETNAME_RETURN_IF_ERROR(MakeClients());
  MakeController();
  PETNAME_RETURN_IF_ERROR(StartEndpoints());
  spdlog::info("petname-operator {} watching {} on {} (workers {}, qps {}, burst {})",
               PETNAME_VERSION, options_.ns.empty() ? "all namespaces" : "namespace " + options_.ns,
               config_.server, options_.workers, options_.qps, options_.burst);
  controller_->Start();
  sweep_controller_->Start();
  if (elector_ == nullptr) {
    Lead();
    return Status::Ok();
  }
  election_thread_ = std::thread([this] {
    if (!elector_->Acquire()) return;
    Lead();
    elector_->StartRenewing([] {
      // Exit at once, as controller-runtime does: a replica that lost the lease must not
      // reconcile another step.
      spdlog::error("leader election lost: exiting");
      std::_Exit(1);
    });
  });
  return Status::Ok();
}

void Manager::Stop() {
  if (elector_ != nullptr) elector_->Stop();
  if (election_thread_.joinable()) election_thread_.join();
  health_.reset();
  metrics_endpoint_.reset();
  if (scraper_ != nullptr) scraper_->Stop();
  client_->Shutdown();
  controller_->Stop();
  sweep_controller_->Stop();
  if (elector_ != nullptr) elector_->Release();
}

Status Manager::MakeClients() {
  kube::ClientOptions opts;
  opts.qps = options_.qps;
  opts.burst = options_.burst;
  opts.on_request = [this](const std::string& verb, const std::string& host, int code,
                           double seconds) {
    metrics_.ObserveApiRequest(verb, host, code, seconds);
  };
  opts.on_retry = [this](const std::string& verb, const std::string& host, int code) {
    metrics_.ObserveApiRetry(verb, host, code);
  };
  PETNAME_RETURN_IF_ERROR(kube::RestClient::Create(config_, opts, &client_));
  if (!options_.leader_elect) return Status::Ok();
  // Lease requests get a client of their own: no retries, and no attempt outlives a retry
  // period, so a renewal never runs past the renew deadline.
  kube::ClientOptions lease_opts;
  lease_opts.qps = 0;
  lease_opts.retry.max_retries = 0;
  lease_opts.request_timeout = std::chrono::seconds(
      std::max<int64_t>(1, (settings_.election.retry_period.count() + 999) / 1000));
  lease_opts.on_request = opts.on_request;
  PETNAME_RETURN_IF_ERROR(kube::RestClient::Create(config_, lease_opts, &lease_client_));
  elector_ = std::make_unique<kube::LeaderElector>(lease_client_.get(), settings_.election);
  return Status::Ok();
}

void Manager::MakeController() {
  controller_ = std::make_unique<controller::Controller>(
      client_.get(),
      controller::ControllerOptions{options_.ns, options_.workers, &metrics_, &progress_store_,
                                    options_.kueue, settings_.kueue, settings_.network_policy});
  sweep_controller_ = std::make_unique<controller::SweepController>(client_.get(), options_.ns,
                                                                    options_.max_pods_per_sweep);
  controller::Controller* ctrl = controller_.get();
  metrics_.SetSources({[ctrl] { return ctrl->queue_stats(); }, [ctrl] { return ctrl->lists(); },
                       [ctrl] { return ctrl->JobsByPhase(); },
                       [this] { return elector_ == nullptr || elector_->is_leader(); }});
  const std::chrono::milliseconds interval = settings_.progress_interval;
  if (interval.count() == 0) return;
  scraper_ = std::make_unique<progress::ProgressScraper>(
      &progress_store_,
      progress::ScraperSources{[ctrl] { return ctrl->ProgressTargets(); },
                               [ctrl] { return ctrl->JobKeys(); },
                               [ctrl](const std::string& key) { ctrl->Enqueue(key); }},
      interval, settings_.progress_limits);
}

Status Manager::StartEndpoints() {
  // Ready once the job and the sweep controllers' caches have synced.
  auto ready = [jobs = controller_.get(), sweeps = sweep_controller_.get()] {
    return jobs->Synced() && sweeps->Synced() ? Plain(200, "ok\n") : Plain(503, "caches syncing\n");
  };
  PETNAME_RETURN_IF_ERROR(ServeEndpoint(
      options_.health_bind, {{"/healthz", [] { return Plain(200, "ok\n"); }}, {"/readyz", ready}},
      &health_));
  return ServeEndpoint(options_.metrics_bind,
                       {{"/metrics",
                         [this] {
                           return HttpResponse{200, kPrometheusContentType, metrics_.Text()};
                         }}},
                       &metrics_endpoint_);
}

void Manager::Lead() {
  controller_->StartWorkers();
  sweep_controller_->StartWorkers();
  if (scraper_ != nullptr) scraper_->Start();
}

}  // namespace petname::app
