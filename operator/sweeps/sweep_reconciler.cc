#include "operator/sweeps/sweep_reconciler.h"

#include <spdlog/spdlog.h>

#include "operator/api/conditions.h"
#include "operator/jobs/cache_shape.h"
#include "operator/jobs/reconciler.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"
#include "operator/sweeps/sweep_desired.h"

namespace petname::controller {
using Json = nlohmann::json;

std::string SweepsPath(const std::string& ns) {
  std::string base = std::string("/apis/") + api::kApiVersion;
  return ns.empty() ? base + "/" + api::kSweepPlural
                    : base + "/namespaces/" + ns + "/" + api::kSweepPlural;
}

SweepReconciler::SweepReconciler(kube::RestClient* client, SweepCaches caches,
                                 kube::EventRecorder* events, int64_t max_pods)
    : client_(client), caches_(caches), events_(events), max_pods_(max_pods) {}

Status SweepReconciler::Refuse(const Json& obj, const std::string& reason,
                               const std::string& message) {
  spdlog::error("{}: {}", kube::Key(obj), message);
  api::SweepStatus failed = api::SweepStatusFromJson(obj.value("status", Json::object()));
  failed.phase = sweep::SweepPhase::kFailed;
  api::SetCondition(&failed.conditions, api::kFailed, true, reason, message, kube::NowUnix());
  const Json status = api::SweepStatusToJson(failed);
  if (obj.value("status", Json::object()) == status) return Status::Ok();
  return WriteStatus(obj, status);
}

Status SweepReconciler::Reconcile(const std::string& key) {
  Json obj;
  if (!caches_.sweeps->Get(key, &obj)) return Status::Ok();  // deleted: the GC removes trials
  if (const int64_t bytes = TooLargeBytes(obj); bytes > 0) {
    return Refuse(obj, "TooLarge", TooLargeMessage("the sweep", bytes));
  }
  api::Sweep sw;
  Status parsed = api::SweepFromJson(obj, &sw);
  if (!parsed.ok()) return Refuse(obj, "InvalidSpec", parsed.message());
  Status bounded = CheckSweepPods(sw, max_pods_);
  if (!bounded.ok()) return Refuse(obj, "TooManyPods", bounded.message());
  const std::vector<Json> jobs = caches_.jobs->List([&](const Json& j) {
    return kube::Namespace(j) == sw.ns && kube::Label(j, api::kSweepNameLabel) == sw.name;
  });
  SweepActions actions;
  PETNAME_RETURN_IF_ERROR(DesiredSweep(sw, jobs, kube::NowUnix(), &actions));
  Status acted = Status::Ok();
  for (const Json& job : actions.create) {
    Status s = Create(sw, job);
    if (!s.ok() && acted.ok()) acted = s;
  }
  for (const std::string& name : actions.stop) {
    Status s = Suspend(sw, name);
    if (!s.ok() && acted.ok()) acted = s;
  }
  PETNAME_RETURN_IF_ERROR(acted);
  const Json status = api::SweepStatusToJson(actions.status);
  if (obj.value("status", Json::object()) == status) return Status::Ok();
  return WriteStatus(obj, status);
}

Status SweepReconciler::Create(const api::Sweep& sw, const Json& job) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("POST", api::JobsPath(sw.ns), &job, &resp));
  if (resp.code == 201 || resp.code == 200) {
    spdlog::info("{}/{}: created trial {}", sw.ns, sw.name, kube::Name(job));
    return Status::Ok();
  }
  if (resp.code == 409) return Status::Ok();  // created before (the cache lags)
  const std::string failure = "create trial " + kube::Name(job) + ": " + kube::ApiMessage(resp);
  if (resp.code == 422 || resp.code == 403) {
    events_->Record(sw.object, "Warning", "FailedCreate", failure);
  }
  return Status::Unavailable(failure);
}

Status SweepReconciler::Suspend(const api::Sweep& sw, const std::string& job_name) {
  const Json patch = {{"spec", {{"runPolicy", {{"suspend", true}}}}}};
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("PATCH", api::JobsPath(sw.ns) + "/" + job_name, &patch, &resp,
                                      "application/merge-patch+json"));
  if (resp.code == 200 || resp.code == 404) {
    spdlog::info("{}/{}: stopped trial {}", sw.ns, sw.name, job_name);
    return Status::Ok();
  }
  return Status::Unavailable("suspend trial " + job_name + ": " + kube::ApiMessage(resp));
}

Status SweepReconciler::WriteStatus(const Json& object, const Json& status) {
  Json body = object;
  body["status"] = status;
  const std::string ns = kube::Namespace(object), name = kube::Name(object);
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("PUT", SweepsPath(ns) + "/" + name + "/status", &body, &resp));
  if (resp.code == 200 || resp.code == 404) return Status::Ok();
  if (resp.code == 409) {
    return Status::FailedPrecondition("status of sweep " + name + " is stale (409); retrying");
  }
  return Status::Unavailable("update status of sweep " + name + ": " + kube::ApiMessage(resp));
}

}  // namespace petname::controller
