#include "operator/controller/controller.h"

#include <spdlog/spdlog.h>

#include "operator/api/job.h"
#include "operator/kube/object.h"

namespace petname::controller {

Controller::Controller(kube::RestClient* client, ControllerOptions options)
    : client_(client),
      options_(std::move(options)),
      queue_(std::chrono::milliseconds(50), std::chrono::seconds(60)),
      events_(client, "petname-operator") {
  const std::string selector =
      kube::SelectorString({{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, ""}});
  jobs_ = std::make_unique<kube::Informer>(client_, JobsPath(options_.ns), "",
                                           [this](const nlohmann::json& o) { Enqueue(o, true); });
  pods_ = std::make_unique<kube::Informer>(client_, CorePath(options_.ns, "Pod"), selector,
                                           [this](const nlohmann::json& o) { Enqueue(o, false); });
  services_ =
      std::make_unique<kube::Informer>(client_, CorePath(options_.ns, "Service"), selector,
                                       [this](const nlohmann::json& o) { Enqueue(o, false); });
  reconciler_ = std::make_unique<Reconciler>(
      client_, Caches{jobs_.get(), pods_.get(), services_.get()}, &events_);
}

Controller::~Controller() { Stop(); }

void Controller::Enqueue(const nlohmann::json& obj, bool is_job) {
  std::string name = is_job ? kube::Name(obj) : kube::Label(obj, api::kJobNameLabel);
  if (!name.empty()) queue_.Add(kube::Key(kube::Namespace(obj), name));
}

void Controller::Start() {
  for (kube::Informer* inf : {jobs_.get(), pods_.get(), services_.get()}) {
    threads_.emplace_back([inf] { inf->Run(); });
  }
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    threads_.emplace_back([this] { Work(); });
  }
}

bool Controller::Synced() const {
  return jobs_->HasSynced() && pods_->HasSynced() && services_->HasSynced();
}

int64_t Controller::lists() const { return jobs_->lists() + pods_->lists() + services_->lists(); }

void Controller::Work() {
  while (!Synced() && !client_->shut_down()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string key;
  while (queue_.Get(&key)) {
    int64_t requeue_after = 0;
    Status s = reconciler_->Reconcile(key, &requeue_after);
    ++reconciles_;
    if (s.ok()) {
      queue_.Forget(key);
      if (requeue_after > 0) queue_.AddAfter(key, std::chrono::seconds(requeue_after));
    } else {
      ++reconcile_errors_;
      // A stale status write (409) is routine when events arrive in quick succession.
      spdlog::log(s.code() == Status::Code::kFailedPrecondition ? spdlog::level::debug
                                                                : spdlog::level::warn,
                  "reconcile {}: {} (will retry)", key, s.message());
      queue_.AddRateLimited(key);
    }
    queue_.Done(key);
  }
}

void Controller::Stop() {
  for (kube::Informer* inf : {jobs_.get(), pods_.get(), services_.get()}) inf->Stop();
  queue_.ShutDown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  events_.Stop();
}

}  // namespace petname::controller
