#include "operator/kube/leader_election.h"

#include <random>

#include <spdlog/spdlog.h>

#include "operator/kube/object.h"

namespace petname::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::string Describe(const Response& r) {
  std::string msg = StringAt(r.body, "/message");
  return "HTTP " + std::to_string(r.code) + (msg.empty() ? "" : ": " + msg);
}

}  // namespace

Status CheckLeaderElectionConfig(const LeaderElectionConfig& c) {
  if (c.ns.empty()) return Status::InvalidArgument("--leader-elect-namespace is empty");
  if (c.name.empty()) return Status::InvalidArgument("--leader-elect-id is empty");
  if (c.lease_duration.count() % 1000 != 0) {
    return Status::InvalidArgument("--leader-elect-lease-duration must be whole seconds");
  }
  if (c.lease_duration <= c.renew_deadline) {
    return Status::InvalidArgument(
        "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  }
  if (c.renew_deadline.count() * 10 <= c.retry_period.count() * 12) {
    return Status::InvalidArgument(
        "--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period");
  }
  return Status::Ok();
}

LeaderElector::LeaderElector(RestClient* client, LeaderElectionConfig config)
    : client_(client), config_(std::move(config)) {}

LeaderElector::~LeaderElector() {
  Stop();
  if (renew_thread_.joinable()) renew_thread_.join();
}

std::string LeaderElector::LeasePath() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.ns + "/leases";
}

bool LeaderElector::SleepFor(milliseconds d) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, d, [this] { return stop_; });
}

bool LeaderElector::TryAcquireOrRenew() {
  const int seconds = static_cast<int>(config_.lease_duration.count() / 1000);
  Response resp;
  Status s = client_->Do("GET", LeasePath() + "/" + config_.name, nullptr, &resp);
  if (!s.ok()) {
    spdlog::debug("leader election: {}", s.message());
    return false;
  }
  LeaseRecord current;
  if (resp.code == 200) {
    current = LeaseFromJson(resp.body);
  } else if (resp.code != 404) {
    spdlog::warn("leader election: get lease {}/{}: {}", config_.ns, config_.name, Describe(resp));
    return false;
  }
  const auto now = steady_clock::now();
  if (resp.code == 200 && current.resource_version != observed_.resource_version) {
    observed_ = current;
    observed_at_ = now;
  }
  const bool expired = resp.code == 200 &&
                       now >= observed_at_ + std::chrono::seconds(current.lease_duration_seconds);
  if (resp.code == 200 && !MayAcquire(current, config_.identity, expired)) return false;

  LeaseRecord next = NextRecord(current, config_.identity, seconds, MicroTimeNow());
  nlohmann::json body = LeaseToJson(config_.ns, config_.name, next);
  const bool create = resp.code == 404;
  s = create ? client_->Do("POST", LeasePath(), &body, &resp)
             : client_->Do("PUT", LeasePath() + "/" + config_.name, &body, &resp);
  if (!s.ok()) {
    spdlog::debug("leader election: {}", s.message());
    return false;
  }
  if (resp.code != 200 && resp.code != 201) {
    // 409: another candidate wrote first; it is now the holder.
    spdlog::debug("leader election: {} lease: {}", create ? "create" : "update", Describe(resp));
    return false;
  }
  observed_ = LeaseFromJson(resp.body);
  observed_at_ = steady_clock::now();
  return true;
}

bool LeaderElector::Acquire() {
  std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0, 1.2);
  spdlog::info("leader election: {} waiting for lease {}/{}", config_.identity, config_.ns,
               config_.name);
  while (true) {
    if (TryAcquireOrRenew()) {
      leader_.store(true);
      spdlog::info("leader election: {} acquired lease {}/{}", config_.identity, config_.ns,
                   config_.name);
      return true;
    }
    auto wait = milliseconds(static_cast<int64_t>(
        static_cast<double>(config_.retry_period.count()) * (1 + jitter(rng))));
    if (!SleepFor(wait)) return false;
  }
}

void LeaderElector::StartRenewing(std::function<void()> on_lost) {
  renew_thread_ = std::thread([this, on_lost = std::move(on_lost)] {
    auto last_renew = steady_clock::now();
    while (SleepFor(config_.retry_period)) {
      if (TryAcquireOrRenew()) {
        last_renew = steady_clock::now();
        continue;
      }
      if (steady_clock::now() - last_renew > config_.renew_deadline) {
        leader_.store(false);
        spdlog::error("leader election: {} could not renew lease {}/{} within {} ms",
                      config_.identity, config_.ns, config_.name, config_.renew_deadline.count());
        on_lost();
        return;
      }
    }
  });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

void LeaderElector::Release() {
  if (renew_thread_.joinable()) renew_thread_.join();
  if (!leader_.exchange(false)) return;
  nlohmann::json body =
      LeaseToJson(config_.ns, config_.name, ReleasedRecord(observed_, MicroTimeNow()));
  Response resp;
  Status s = client_->Do("PUT", LeasePath() + "/" + config_.name, &body, &resp);
  if (s.ok() && resp.code == 200) {
    spdlog::info("leader election: released lease {}/{}", config_.ns, config_.name);
  } else {
    spdlog::warn("leader election: release lease {}/{}: {}", config_.ns, config_.name,
                 s.ok() ? Describe(resp) : s.message());
  }
}

}  // namespace petname::kube
