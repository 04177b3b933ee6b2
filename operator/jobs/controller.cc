#include "operator/jobs/controller.h"

#include <spdlog/spdlog.h>

#include "operator/api/job.h"
#include "operator/api/job_status.h"
#include "operator/api/pod.h"
#include "operator/jobs/cache_shape.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/logging/logging.h"

namespace petname::controller {
namespace {

kube::Informer::Transform Shaper(JobObject kind) {
  return [kind](nlohmann::json* obj) { return ShapeJobObject(kind, obj); };
}

}  // namespace

Controller::Controller(kube::RestClient* client, ControllerOptions options)
    : client_(client),
      options_(std::move(options)),
      queue_(std::chrono::milliseconds(50), std::chrono::seconds(60)),
      events_(client, "petname-operator") {
  const std::string selector =
      kube::SelectorString({{api::kNameLabel, api::kAppName}, {api::kJobNameLabel, ""}});
  jobs_ = std::make_unique<kube::Informer>(
      client_, api::JobsPath(options_.ns), "",
      [this](const nlohmann::json& o) { Enqueue(o, true); }, ShapeJob);
  pods_ = std::make_unique<kube::Informer>(
      client_, kube::CorePath(options_.ns, "Pod"), selector,
      [this](const nlohmann::json& o) { Enqueue(o, false); }, Shaper(JobObject::kPod));
  services_ = std::make_unique<kube::Informer>(
      client_, kube::CorePath(options_.ns, "Service"), selector,
      [this](const nlohmann::json& o) { Enqueue(o, false); }, Shaper(JobObject::kService));
  if (options_.kueue) WatchWorkloads(selector);
  if (options_.network_policy.enabled) {
    network_policies_ = std::make_unique<kube::Informer>(
        client_, NetworkPoliciesPath(options_.ns), selector,
        [this](const nlohmann::json& o) { Enqueue(o, false); }, Shaper(JobObject::kNetworkPolicy));
  }
  ReconcileHooks hooks;
  hooks.progress = options_.progress;
  if (options_.metrics != nullptr) {
    hooks.status_written = [m = options_.metrics](const api::Job& job, const api::JobStatus& old,
                                                  const api::JobStatus& now) {
      m->ObserveStatusWrite(job.ns, old, now);
    };
  }
  reconciler_ = std::make_unique<Reconciler>(
      client_,
      Caches{jobs_.get(), pods_.get(), services_.get(), network_policies_.get(), workloads_.get()},
      &events_, std::move(hooks), options_.kueue, options_.network_policy, options_.kueue_config);
}

void Controller::WatchWorkloads(const std::string& selector) {
  const std::string group = "/apis/kueue.x-k8s.io/v1beta2";
  kube::Response resp;
  Status s = client_->Do("GET", group, nullptr, &resp);
  if (!s.ok() || resp.code != 200) {
    spdlog::error(
        "--kueue: {} is not served ({}); jobs in a queue wait with condition QuotaReserved False "
        "(KueueUnavailable) until the operator is restarted with Kueue installed",
        group, s.ok() ? kube::ApiMessage(resp) : s.message());
    return;
  }
  // Kept whole: status writes send the cached object back.
  workloads_ = std::make_unique<kube::Informer>(
      client_, WorkloadsPath(options_.ns), selector,
      [this](const nlohmann::json& o) { Enqueue(o, false); }, Shaper(JobObject::kWorkload));
}

std::vector<kube::Informer*> Controller::Informers() const {
  std::vector<kube::Informer*> all = {jobs_.get(), pods_.get(), services_.get()};
  if (workloads_) all.push_back(workloads_.get());
  if (network_policies_) all.push_back(network_policies_.get());
  return all;
}

Controller::~Controller() { Stop(); }

void Controller::Enqueue(const nlohmann::json& obj, bool is_job) {
  std::string name = is_job ? kube::Name(obj) : kube::Label(obj, api::kJobNameLabel);
  if (!name.empty()) queue_.Add(kube::Key(kube::Namespace(obj), name));
}

void Controller::Start() {
  for (kube::Informer* inf : Informers()) {
    threads_.emplace_back([inf] { inf->Run(); });
  }
}

void Controller::StartWorkers() {
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    threads_.emplace_back([this] { Work(); });
  }
}

bool Controller::Synced() const {
  for (const kube::Informer* inf : Informers()) {
    if (!inf->HasSynced()) return false;
  }
  return true;
}

int64_t Controller::lists() const {
  int64_t n = 0;
  for (const kube::Informer* inf : Informers()) n += inf->lists();
  return n;
}

std::map<std::string, int64_t> Controller::JobsByPhase() const {
  std::map<std::string, int64_t> phases;
  jobs_->Visit(
      [&phases](const nlohmann::json& job) { ++phases[api::PhaseName(api::PhaseOf(job))]; });
  return phases;
}

std::set<std::string> Controller::JobKeys() const {
  std::set<std::string> keys;
  jobs_->Visit([&keys](const nlohmann::json& job) { keys.insert(kube::Key(job)); });
  return keys;
}

std::vector<progress::Target> Controller::ProgressTargets() const {
  // Running jobs by uid, then the pod of rank 0 each controls: two passes, no copies.
  struct Running {
    std::string key;
    int metrics_port = 0;
  };
  std::map<std::string, Running> running;
  jobs_->Visit([&running](const nlohmann::json& job) {
    if (api::PhaseOf(job) != api::JobPhase::kRunning) return;
    running[kube::Uid(job)] = {kube::Key(job), api::MetricsPortOf(job)};
  });
  std::map<std::string, std::string> urls;  // job key -> URL
  pods_->Visit([&](const nlohmann::json& p) {
    if (kube::Label(p, api::kRankLabel) != "0") return;
    const api::ObservedPod pod = api::PodFromJson(p);
    if (pod.phase != "Running" || pod.pod_ip.empty()) return;
    auto job = running.find(kube::ControllerUid(p));
    if (job == running.end() ||
        job->second.key != kube::Key(kube::Namespace(p), kube::Label(p, api::kJobNameLabel))) {
      return;
    }
    urls.emplace(job->second.key, progress::MetricsUrl(pod.pod_ip, job->second.metrics_port));
  });
  std::vector<progress::Target> targets;
  for (const auto& [key, url] : urls) targets.push_back({key, url});
  return targets;
}

void Controller::Work() {
  while (!Synced() && !client_->shut_down()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string key;
  kube::WorkQueue::Clock::duration waited{};
  while (queue_.Get(&key, &waited)) {
    logging::ReconcileScope scope(key, logging::RandomUuid());
    const auto start = std::chrono::steady_clock::now();
    int64_t requeue_after = 0;
    Status s = reconciler_->Reconcile(key, &requeue_after);
    if (options_.metrics != nullptr) {
      options_.metrics->ObserveQueueWait(std::chrono::duration<double>(waited).count());
      options_.metrics->ObserveReconcile(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
          !s.ok()             ? operator_metrics::ReconcileResult::kError
          : requeue_after > 0 ? operator_metrics::ReconcileResult::kRequeueAfter
                              : operator_metrics::ReconcileResult::kSuccess);
    }
    if (s.ok()) {
      queue_.Forget(key);
      if (requeue_after > 0) queue_.AddAfter(key, std::chrono::seconds(requeue_after));
    } else {
      // A stale status write (409) is routine when events arrive in quick succession.
      spdlog::log(s.code() == Status::Code::kFailedPrecondition ? spdlog::level::debug
                                                                : spdlog::level::warn,
                  "reconcile {}: {} (will retry)", key, s.message());
      queue_.AddRateLimited(key);
    }
    queue_.Done(key);
    if (options_.metrics != nullptr) {
      options_.metrics->ObserveWork(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
}

void Controller::Stop() {
  for (kube::Informer* inf : Informers()) inf->Stop();
  queue_.ShutDown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  events_.Stop();
}

}  // namespace petname::controller
