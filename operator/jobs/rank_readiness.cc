#include "operator/jobs/rank_readiness.h"

#include <algorithm>

namespace petname::controller {
namespace {

// Keeps the earlier of two due times in seconds from now (0: none).
void Sooner(int64_t seconds, int64_t* requeue_after) {
  seconds = std::max<int64_t>(seconds, 1);
  if (*requeue_after == 0 || seconds < *requeue_after) *requeue_after = seconds;
}

}  // namespace

PodsReadyDecision DecidePodsReady(const api::JobSpec& spec,
                                  const std::vector<api::ObservedPod>& current, int64_t now) {
  std::vector<StartBlock> blocks;
  int ready = 0;
  for (const api::ObservedPod& pod : current) {
    StartBlock b;
    if (PodStartBlocked(pod, now, &b)) blocks.push_back(std::move(b));
    if (pod.phase == "Succeeded" || (pod.phase == "Running" && pod.ConditionTrue("Ready"))) {
      ++ready;
    }
  }
  // Start errors first (they fail the job), then by rank.
  std::stable_sort(blocks.begin(), blocks.end(), [](const StartBlock& a, const StartBlock& b) {
    return a.start_error != b.start_error ? a.start_error : a.rank < b.rank;
  });
  const int64_t timeout = spec.start_error_timeout_seconds;
  PodsReadyDecision d;
  std::string message;
  for (const StartBlock& b : blocks) {
    if (b.start_error && now >= b.since + timeout) {
      d.condition = {false, b.reason, DescribeBlock(b)};
      d.timed_out = b;
      return d;
    }
    if (b.start_error) Sooner(b.since + timeout - now, &d.requeue_after);
    message += (message.empty() ? "" : "; ") + DescribeBlock(b);
  }
  const int n = spec.replicas;
  if (!blocks.empty()) {
    d.condition = {false, blocks.front().reason, message};
  } else if (ready >= n) {
    d.condition = {true, "AllRanksReady", "all " + std::to_string(n) + " rank pods are ready"};
  } else {
    d.condition = {false, "PodsStarting",
                   std::to_string(ready) + "/" + std::to_string(n) + " rank pods ready"};
  }
  return d;
}

UnschedulableRanks FindUnschedulable(const api::JobSpec& spec,
                                     const std::vector<api::ObservedPod>& current, int64_t now) {
  UnschedulableRanks out;
  for (const api::ObservedPod& pod : current) {
    const api::PodCondition* cond = pod.Condition("PodScheduled");
    if (!(pod.phase.empty() || pod.phase == "Pending") || cond == nullptr ||
        cond->status != "False" || cond->reason != "Unschedulable") {
      continue;
    }
    const int64_t since = cond->last_transition_time.value_or(now);
    const int64_t due = since + spec.unschedulable_after_seconds;
    if (now < due) {
      Sooner(due - now, &out.requeue_after);
      continue;
    }
    if (!out.message.empty()) out.message += "; ";
    out.message +=
        pod.name + ": " + (cond->message.empty() ? "cannot be scheduled" : cond->message);
  }
  return out;
}

}  // namespace petname::controller
