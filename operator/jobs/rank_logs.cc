#include "operator/jobs/rank_logs.h"

namespace petname::controller {
namespace {

// spec.env's PETNAME_LOG_DIR when it has a plain value, else "".
std::string EnvLogDir(const api::JobSpec& spec) {
  for (const nlohmann::json& e : spec.env) {
    if (e.is_object() && e.value("name", "") == kLogDirEnv && e.contains("value") &&
        e["value"].is_string()) {
      return e["value"].get<std::string>();
    }
  }
  return "";
}

}  // namespace

std::string RankLogHint(const api::Job& job, const RankFailure& failure, int attempt) {
  if (failure.rank < 0 || !failure.init_container.empty()) return "";
  const int procs = api::ProcessesPerPod(job.spec);
  const int first = failure.rank * procs, last = first + procs - 1;
  const std::string a = std::to_string(attempt);
  const std::string who =
      procs == 1 ? "rank " + std::to_string(first) + "'s log"
                 : "ranks " + std::to_string(first) + " to " + std::to_string(last) + "' logs";
  const std::string custom = EnvLogDir(job.spec);
  const std::string checkpoint_dir = api::CheckpointDir(job.spec, job.name);
  const std::string dir = (custom.empty() ? checkpoint_dir + "/logs" : custom) + "/attempt-" + a;
  const std::string files = dir + "/rank-" + std::to_string(first) + ".log" +
                            (procs == 1 ? "" : " .. rank-" + std::to_string(last) + ".log");
  if (custom.empty() && job.spec.checkpoint_claim.empty()) {
    return who + " of attempt " + a + " was kept at " + files +
           " in the pod's emptyDir and is gone with it (set checkpoint.claimName to keep it)";
  }
  const std::string where = custom.empty() ? " on claim " + job.spec.checkpoint_claim : "";
  const std::string flag =
      custom.empty() ? "--checkpoint-dir " + checkpoint_dir : "--log-dir " + custom;
  return who + " of attempt " + a + ": " + files + where + " (petname logs " + flag +
         " --attempt " + a + " --rank " + std::to_string(first) + ")";
}

}  // namespace petname::controller
