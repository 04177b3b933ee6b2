// LeaderElector: client-go style leader election on a coordination.k8s.io/v1 Lease (decisions
// in lease.h). Acquire() polls every retry period (with jitter) until this identity holds the
// lease. StartRenewing() then renews it every retry period on a thread of its own; when no
// renewal has succeeded for renew_deadline it stops and calls on_lost, after which the caller
// must stop reconciling at once (petname-operator exits, as controller-runtime does). Stop()
// (any thread) ends both loops; Release() waits for the renew loop to end and hands a held
// lease back so a standby takes over at once.
//
// Give it a RestClient of its own with a short request timeout and no retries: a renewal
// attempt must not outlive the renew deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"
#include "operator/kube/lease.h"
#include "operator/kube/rest_client.h"

namespace petname::kube {

struct LeaderElectionConfig {
  std::string ns;
  std::string name;
  std::string identity;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

// client-go's rules: lease_duration > renew_deadline > 1.2 * retry_period, lease duration a
// whole number of seconds; InvalidArgument naming the violated rule.
Status CheckLeaderElectionConfig(const LeaderElectionConfig& config);

class LeaderElector {
 public:
  LeaderElector(RestClient* client, LeaderElectionConfig config);
  ~LeaderElector();

  // Blocks until this identity holds the lease (true) or Stop() (false).
  bool Acquire();
  void StartRenewing(std::function<void()> on_lost);
  void Stop();
  // After Stop() and after Acquire() returned: writes the lease back with no holder when this
  // identity still holds it.
  void Release();

  bool is_leader() const { return leader_.load(); }

 private:
  bool TryAcquireOrRenew();
  // Sleeps `d` unless Stop() comes first; false when stopped.
  bool SleepFor(std::chrono::milliseconds d);
  std::string LeasePath() const;

  RestClient* const client_;
  const LeaderElectionConfig config_;
  LeaseRecord observed_;
  std::chrono::steady_clock::time_point observed_at_;
  std::atomic<bool> leader_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread renew_thread_;
};

}  // namespace petname::kube
