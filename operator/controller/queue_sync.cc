#include "operator/controller/queue_sync.h"

#include <set>

#include <spdlog/spdlog.h>

#include "operator/api/conditions.h"
#include "operator/api/workload.h"
#include "operator/controller/desired.h"
#include "operator/controller/reconciler.h"
#include "operator/controller/workload_finalizer.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kKueueApis[] = "/apis/kueue.x-k8s.io/v1beta2";

// Who holds a Workload's name, for a conflict's message.
std::string Holder(const Json& wl) {
  for (const Json& ref : wl.value("/metadata/ownerReferences"_json_pointer, Json::array())) {
    if (ref.is_object() && ref.value("controller", false)) {
      return "a Workload controlled by " + ref.value("kind", "") + " " + ref.value("name", "");
    }
  }
  return "a Workload that no job controls";
}

}  // namespace

std::string WorkloadsPath(const std::string& ns) {
  return ns.empty() ? std::string(kKueueApis) + "/workloads"
                    : std::string(kKueueApis) + "/namespaces/" + ns + "/workloads";
}

QueueSync::QueueSync(kube::RestClient* client, const kube::Informer* workloads,
                     kube::EventRecorder* events)
    : client_(client), workloads_(workloads), events_(events) {}

Status QueueSync::Observe(const api::Job& job, QueueState* queue, Json* wl) const {
  *queue = QueueState{};
  queue->wanted = true;
  if (workloads_ == nullptr) {
    queue->unavailable = true;
    return Status::Ok();
  }
  // Kueue's own kinds keep one Workload per job; a second one (made by hand) is ignored.
  const std::string name = api::WorkloadName(job);
  std::vector<Json> mine = workloads_->List([&](const Json& o) {
    return kube::Namespace(o) == job.ns && kube::Name(o) == name &&
           kube::IsControlledBy(o, job.uid);
  });
  if (!mine.empty()) {
    *wl = mine.front();
    queue->workload = api::WorkloadStateFromJson(*wl);
    return Status::Ok();
  }
  queue->workload.name = name;
  return Lookup(job, queue, wl);
}

Status QueueSync::Lookup(const api::Job& job, QueueState* queue, Json* wl) const {
  const std::string& name = queue->workload.name;
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("GET", WorkloadsPath(job.ns) + "/" + name, nullptr, &resp));
  if (resp.code == 200 && kube::IsControlledBy(resp.body, job.uid)) {
    *wl = resp.body;
    queue->workload = api::WorkloadStateFromJson(*wl);
    return Status::Ok();
  }
  if (resp.code == 200) {
    queue->name_taken_by = Holder(resp.body);
    return Status::Ok();
  }
  if (resp.code != 404)
    return Status::Unavailable("get Workload " + name + ": " + ApiMessage(resp));
  queue->priority_class = kube::Label(job.object, api::kPriorityClassLabel);
  if (queue->priority_class.empty()) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "GET", std::string(kKueueApis) + "/workloadpriorityclasses/" + queue->priority_class, nullptr,
      &resp));
  if (resp.code == 404) {
    queue->priority_class_missing = true;
    return Status::Ok();
  }
  if (resp.code != 200 || !resp.body.contains("value") || !resp.body["value"].is_number_integer()) {
    return Status::Unavailable("get WorkloadPriorityClass " + queue->priority_class + ": " +
                               ApiMessage(resp));
  }
  queue->priority = resp.body["value"].get<int32_t>();
  return Status::Ok();
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

Status QueueSync::CreateWorkload(const api::Job& job, const QueueState& queue) const {
  const std::vector<Json> pods = Desired(job, PodAction::kRun).pods;
  if (pods.empty()) return Status::Ok();
  const Json wl = api::BuildWorkload(job, pods.front(), queue.priority);
  const std::string path = WorkloadsPath(job.ns);
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("POST", path, &wl, &resp));
  if (resp.code == 201 || resp.code == 200) {
    events_->Record(job.object, "Normal", "CreatedWorkload",
                    "created Workload " + kube::Name(wl) + " in queue " + api::QueueName(job));
    return Status::Ok();
  }
  if (resp.code == 409) {  // exists: ours (the cache lags) or someone else's
    kube::Response got;
    PETNAME_RETURN_IF_ERROR(client_->Do("GET", path + "/" + kube::Name(wl), nullptr, &got));
    if (got.code != 200) {
      return Status::FailedPrecondition("create Workload " + kube::Name(wl) +
                                        ": exists (409), read back: " + ApiMessage(got));
    }
    if (kube::IsControlledBy(got.body, job.uid)) return Status::Ok();
    const std::string why = "the job's Workload " + kube::Name(wl) +
                            " cannot be created: " + Holder(got.body) + " holds that name";
    events_->Record(job.object, "Warning", "WorkloadConflict", why);
    return Status::FailedPrecondition(why);
  }
  const std::string failure = "create Workload " + kube::Name(wl) + ": " + ApiMessage(resp);
  if (resp.code == 422 || resp.code == 403 || resp.code == 400) {
    events_->Record(job.object, "Warning", "FailedCreateWorkload", failure);
  }
  return Status::Unavailable(failure);
}

Status QueueSync::Put(const Json& wl, const std::string& subresource) const {
  const std::string what = "Workload " + kube::Name(wl) + subresource;
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "PUT", WorkloadsPath(kube::Namespace(wl)) + "/" + kube::Name(wl) + subresource, &wl, &resp));
  if (resp.code == 200 || resp.code == 404) return Status::Ok();
  if (resp.code == 409) return Status::FailedPrecondition(what + " is stale (409); retrying");
  return Status::Unavailable("update " + what + ": " + ApiMessage(resp));
}

Status QueueSync::WriteWorkloadStatus(const Json& wl) const { return Put(wl, "/status"); }

Status QueueSync::RemoveFinalizer(const Json& wl) const {
  spdlog::info("{}/{}: the job's pods are gone: removing {} from Workload {}", kube::Namespace(wl),
               kube::Label(wl, api::kJobNameLabel), api::kResourceInUseFinalizer, kube::Name(wl));
  return Put(api::WithoutResourceInUse(wl), "");
}

Status QueueSync::ReleaseOrphans(const std::string& key, const std::string& live_uid,
                                 const std::vector<Json>& pods) const {
  if (workloads_ == nullptr) return Status::Ok();
  const std::vector<Json> left = workloads_->List([&](const Json& o) {
    return kube::Key(kube::Namespace(o), kube::Label(o, api::kJobNameLabel)) == key;
  });
  Status first;
  for (const Json& wl : OrphanedWorkloads(left, pods, live_uid)) {
    Status s = RemoveFinalizer(wl);
    if (first.ok()) first = s;
  }
  return first;
}

Status QueueSync::Act(const api::Job& requested, const Plan& plan, const QueueState& queue,
                      const Json& wl, const std::vector<api::ObservedPod>& pods) const {
  if (!queue.wanted) return Status::Ok();
  if (ReleaseWorkload(queue.workload, pods)) return RemoveFinalizer(wl);
  const int64_t now = kube::NowUnix();
  switch (plan.workload) {
    case WorkloadAction::kCreate:
      return CreateWorkload(requested, queue);
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
