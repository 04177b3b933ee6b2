#include "operator/controller/queue_sync.h"

#include <set>

#include <spdlog/spdlog.h>

#include "operator/api/conditions.h"
#include "operator/api/workload.h"
#include "operator/controller/desired.h"
#include "operator/controller/reconciler.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kKueueApis[] = "/apis/kueue.x-k8s.io/v1beta2";

}  // namespace

std::string WorkloadsPath(const std::string& ns) {
  return ns.empty() ? std::string(kKueueApis) + "/workloads"
                    : std::string(kKueueApis) + "/namespaces/" + ns + "/workloads";
}

QueueSync::QueueSync(kube::RestClient* client, const kube::Informer* workloads,
                     kube::EventRecorder* events)
    : client_(client), workloads_(workloads), events_(events) {}

QueueState QueueSync::Observe(const api::Job& job, Json* wl) const {
  QueueState q;
  q.wanted = true;
  if (workloads_ == nullptr) {
    q.unavailable = true;
    return q;
  }
  std::vector<Json> mine = workloads_->List([&](const Json& o) {
    return kube::Namespace(o) == job.ns && kube::Label(o, api::kJobNameLabel) == job.name &&
           kube::IsControlledBy(o, job.uid);
  });
  // Kueue's own kinds keep one Workload per job; a second one (made by hand) is ignored.
  for (const Json& o : mine) {
    if (kube::Name(o) == api::WorkloadName(job)) {
      *wl = o;
      q.workload = api::WorkloadStateFromJson(o);
    }
  }
  return q;
}

void QueueSync::ApplyAdmittedReplicas(const QueueState& queue, api::Job* job) const {
  const api::WorkloadState& wl = queue.workload;
  if (!queue.wanted || !wl.admitted || wl.evicted) return;
  if (wl.admitted_count > 0 && wl.admitted_count < job->spec.replicas) {
    job->spec.replicas = wl.admitted_count;
  }
}

Status QueueSync::ApplyFlavors(const QueueState& queue, api::Job* job) const {
  const api::WorkloadState& wl = queue.workload;
  if (!queue.wanted || !wl.admitted || wl.evicted) return Status::Ok();
  std::set<std::string> flavors;
  for (const auto& [resource, flavor] : wl.flavors) flavors.insert(flavor);
  for (const std::string& name : flavors) {
    kube::Response resp;
    PETNAME_RETURN_IF_ERROR(
        client_->Do("GET", std::string(kKueueApis) + "/resourceflavors/" + name, nullptr, &resp));
    if (resp.code != 200) {
      return Status::Unavailable("get ResourceFlavor " + name + ": " + ApiMessage(resp));
    }
    api::ApplyFlavor(resp.body, &job->spec);
  }
  return Status::Ok();
}

std::optional<int32_t> QueueSync::Priority(const api::Job& job) const {
  const std::string name = kube::Label(job.object, api::kPriorityClassLabel);
  if (name.empty()) return std::nullopt;
  kube::Response resp;
  Status s = client_->Do("GET", std::string(kKueueApis) + "/workloadpriorityclasses/" + name,
                         nullptr, &resp);
  if (s.ok() && resp.code == 200 && resp.body.contains("value") &&
      resp.body["value"].is_number_integer()) {
    return resp.body["value"].get<int32_t>();
  }
  events_->Record(job.object, "Warning", "PriorityClassNotFound",
                  "WorkloadPriorityClass " + name + " (label " + api::kPriorityClassLabel +
                      ") was not found; the Workload gets the default priority");
  return std::nullopt;
}

Status QueueSync::CreateWorkload(const api::Job& job) const {
  const std::vector<Json> pods = Desired(job, PodAction::kRun).pods;
  if (pods.empty()) return Status::Ok();
  const Json wl = api::BuildWorkload(job, pods.front(), Priority(job));
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("POST", WorkloadsPath(job.ns), &wl, &resp));
  if (resp.code == 201 || resp.code == 200 || resp.code == 409) {
    if (resp.code != 409) {
      events_->Record(job.object, "Normal", "CreatedWorkload",
                      "created Workload " + kube::Name(wl) + " in queue " + api::QueueName(job));
    }
    return Status::Ok();
  }
  const std::string failure = "create Workload " + kube::Name(wl) + ": " + ApiMessage(resp);
  if (resp.code == 422 || resp.code == 403 || resp.code == 400) {
    events_->Record(job.object, "Warning", "FailedCreateWorkload", failure);
  }
  return Status::Unavailable(failure);
}

Status QueueSync::WriteWorkloadStatus(const Json& wl) const {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "PUT", WorkloadsPath(kube::Namespace(wl)) + "/" + kube::Name(wl) + "/status", &wl, &resp));
  if (resp.code == 200 || resp.code == 404) return Status::Ok();
  if (resp.code == 409) {
    return Status::FailedPrecondition("Workload " + kube::Name(wl) + " is stale (409); retrying");
  }
  return Status::Unavailable("update Workload status " + kube::Name(wl) + ": " + ApiMessage(resp));
}

Status QueueSync::Act(const api::Job& requested, const Plan& plan, const QueueState& queue,
                      const Json& wl) const {
  if (!queue.wanted) return Status::Ok();
  const int64_t now = kube::NowUnix();
  switch (plan.workload) {
    case WorkloadAction::kCreate:
      return CreateWorkload(requested);
    case WorkloadAction::kClearReservation:
      spdlog::info("{}/{}: evicted ({}), no pod left: clearing the Workload's reservation",
                   requested.ns, requested.name, queue.workload.evicted_reason);
      return WriteWorkloadStatus(api::ClearReservation(wl, now));
    case WorkloadAction::kFinish: {
      const bool ok = plan.status.phase == api::JobPhase::kSucceeded;
      const api::Condition* c =
          api::FindCondition(plan.status.conditions, ok ? api::kSucceeded : api::kFailed);
      return WriteWorkloadStatus(api::FinishWorkload(wl, ok, c != nullptr ? c->message : "", now));
    }
    case WorkloadAction::kNone:
      break;
  }
  const std::optional<api::WorkloadCondition> ready = WorkloadPodsReady(
      queue.workload, api::ConditionIs(plan.status.conditions, api::kPodsReady, true));
  if (!ready) return Status::Ok();
  return WriteWorkloadStatus(api::SetWorkloadPodsReady(wl, *ready, now));
}

}  // namespace petname::controller
