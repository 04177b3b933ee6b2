#include "operator/sweeps/sweep_controller.h"

#include <spdlog/spdlog.h>

#include "operator/api/sweep.h"
#include "operator/jobs/cache_shape.h"
#include "operator/jobs/reconciler.h"
#include "operator/kube/object.h"
#include "operator/logging/logging.h"

namespace petname::controller {

SweepController::SweepController(kube::RestClient* client, const std::string& ns, int64_t max_pods)
    : client_(client),
      queue_(std::chrono::milliseconds(50), std::chrono::seconds(60)),
      events_(client, "petname-operator") {
  sweeps_ = std::make_unique<kube::Informer>(
      client_, SweepsPath(ns), "", [this](const nlohmann::json& o) { queue_.Add(kube::Key(o)); },
      ShapeSweep);
  jobs_ = std::make_unique<kube::Informer>(
      client_, api::JobsPath(ns), kube::SelectorString({{api::kSweepNameLabel, ""}}),
      [this](const nlohmann::json& o) {
        const std::string sweep = kube::Label(o, api::kSweepNameLabel);
        if (!sweep.empty()) queue_.Add(kube::Key(kube::Namespace(o), sweep));
      },
      ShapeTrialJob);
  reconciler_ = std::make_unique<SweepReconciler>(client_, SweepCaches{sweeps_.get(), jobs_.get()},
                                                  &events_, max_pods);
}

SweepController::~SweepController() { Stop(); }

void SweepController::Start() {
  for (kube::Informer* inf : {sweeps_.get(), jobs_.get()}) {
    threads_.emplace_back([inf] { inf->Run(); });
  }
}

void SweepController::StartWorkers() {
  threads_.emplace_back([this] { Work(); });
}

bool SweepController::Synced() const { return sweeps_->HasSynced() && jobs_->HasSynced(); }

void SweepController::Work() {
  while (!Synced() && !client_->shut_down()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string key;
  kube::WorkQueue::Clock::duration waited{};
  while (queue_.Get(&key, &waited)) {
    logging::ReconcileScope scope(key, logging::RandomUuid());
    Status s = reconciler_->Reconcile(key);
    if (s.ok()) {
      queue_.Forget(key);
    } else {
      spdlog::log(s.code() == Status::Code::kFailedPrecondition ? spdlog::level::debug
                                                                : spdlog::level::warn,
                  "reconcile sweep {}: {} (will retry)", key, s.message());
      queue_.AddRateLimited(key);
    }
    queue_.Done(key);
  }
}

void SweepController::Stop() {
  for (kube::Informer* inf : {sweeps_.get(), jobs_.get()}) inf->Stop();
  queue_.ShutDown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  events_.Stop();
}

}  // namespace petname::controller
