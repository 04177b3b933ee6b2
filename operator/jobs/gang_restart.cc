#include "operator/jobs/gang_restart.h"

#include <algorithm>

#include "operator/jobs/rank_logs.h"

namespace petname::controller {
namespace {

constexpr int64_t kMaxRestartDelaySeconds = 300;

// Keeps only letters and digits (a valid condition/event reason); "RankFailed" when empty.
std::string Reason(const std::string& raw) {
  std::string out;
  for (char ch : raw) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
      out += ch;
    }
  }
  if (out.empty() || !((out[0] >= 'a' && out[0] <= 'z') || (out[0] >= 'A' && out[0] <= 'Z'))) {
    return "RankFailed";
  }
  return out;
}

}  // namespace

int64_t RestartDelaySeconds(const api::JobSpec& spec, int restarts) {
  int64_t delay = spec.restart_backoff_seconds;
  for (int i = 1; i < restarts && delay < kMaxRestartDelaySeconds; ++i) delay *= 2;
  return std::min(delay, kMaxRestartDelaySeconds);
}

std::optional<RankFailure> FirstRankFailure(const std::vector<api::ObservedPod>& current) {
  std::optional<RankFailure> first;
  for (const api::ObservedPod& pod : current) {
    RankFailure f;
    if (PodFailed(pod, &f) && (!first || f.rank < first->rank)) first = std::move(f);
  }
  return first;
}

RestartDecision DecideRestart(const api::Job& job, const RankFailure& f, int generation) {
  const api::JobSpec& spec = job.spec;
  const std::string hint = RankLogHint(job, f, generation);
  const std::string what =
      Describe(f, api::ProcessesPerPod(spec)) + (hint.empty() ? "" : "; " + hint);
  RestartDecision d;
  d.failure = what;
  if (CheckpointDirUnusable(f)) {
    d.reason = "CheckpointDirUnusable";
    d.message = what + " (the checkpoint directory cannot be written; not retried)";
  } else if (DataFetchFailed(f)) {
    d.reason = "DataFetchFailed";
    d.message = what + " (spec.dataset.url could not be fetched; not retried)";
  } else if (!Retryable(spec.restart_policy, f)) {
    d.reason = "RankFailed";
    d.message = what + " (not retried under restartPolicy " + spec.restart_policy + ")";
  } else if (generation >= spec.backoff_limit) {
    d.reason = "BackoffLimitExceeded";
    d.message = "the job was restarted " + std::to_string(generation) +
                " times (runPolicy.backoffLimit " + std::to_string(spec.backoff_limit) +
                "); last failure: " + what;
  } else {
    d.restart = true;
    d.reason = Reason(f.reason);
    d.message = what + "; restarting all ranks from the latest checkpoint (restart " +
                std::to_string(generation + 1) + " of at most " +
                std::to_string(spec.backoff_limit) + ")";
  }
  return d;
}

int64_t RecreateInSeconds(const api::JobSpec& spec, const api::JobStatus& status, int64_t now) {
  const int64_t last = status.last_restart_time.value_or(now);
  const int64_t due = last + RestartDelaySeconds(spec, status.restarts);
  return now < due ? due - now : 0;
}

}  // namespace petname::controller
