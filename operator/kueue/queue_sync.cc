#include "operator/kueue/queue_sync.h"

#include <mutex>
#include <set>
#include <vector>

#include <spdlog/spdlog.h>

#include "operator/api/conditions.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"
#include "operator/kueue/admission_merge.h"
#include "operator/kueue/pod_quota.h"
#include "operator/kueue/queue_membership.h"
#include "operator/kueue/workload.h"
#include "operator/kueue/workload_drift.h"
#include "operator/kueue/workload_finalizer.h"
#include "operator/kueue/workload_pods_ready.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kKueueApis[] = "/apis/kueue.x-k8s.io/v1beta2";
constexpr char kFailedToStart[] = "FailedToStart";  // Kueue's jobframework's reason
constexpr char kDefaultLocalQueue[] = "default";    // Kueue's DefaultLocalQueueName

}  // namespace

QueueSync::QueueSync(kube::RestClient* client, const kube::Informer* workloads,
                     kube::EventRecorder* events, KueueConfig config, RankPodFn rank_pod)
    : client_(client),
      workloads_(workloads),
      events_(events),
      facts_(client, std::move(config)),
      writer_(client, events),
      rank_pod_(std::move(rank_pod)) {}

Status QueueSync::Observe(const api::Job& job, bool first_look, QueueState* queue, Json* wl) const {
  *queue = QueueState{};
  MembershipFacts facts;
  facts.labelled = !api::QueueName(job).empty();
  facts.first_look = first_look;
  facts.was_queued = api::FindCondition(job.status.conditions, api::kQuotaReserved) != nullptr;
  if (!facts.labelled && !facts.was_queued && !facts.first_look) return Status::Ok();
  if (workloads_ == nullptr) {
    queue->wanted = queue->unavailable = facts.labelled;
    return Status::Ok();
  }
  const KueueConfig& config = facts_.config();
  queue->workload.name = api::WorkloadName(job);
  if (facts.labelled || facts.was_queued || config.manage_jobs_without_queue_name) {
    PETNAME_RETURN_IF_ERROR(FindWorkload(job, queue, wl));
  }
  facts.has_workload = queue->workload.exists;
  if (NeedsDefaultQueue(facts)) {
    PETNAME_RETURN_IF_ERROR(facts_.DefaultQueueExists(job.ns, &facts.default_queue));
  }
  if (NeedsNamespace(config, facts)) {
    PETNAME_RETURN_IF_ERROR(facts_.NamespaceManaged(job.ns, &facts.namespace_managed));
  }
  switch (DecideMembership(config, facts)) {
    case Membership::kNone:
      return Status::Ok();
    case Membership::kDefaultQueue:
      queue->default_queue = true;
      return Status::Ok();
    case Membership::kNamespaceNotManaged:
      queue->wanted = queue->namespace_unmanaged = true;
      return Status::Ok();
    case Membership::kLabelRemoved:
      queue->wanted = queue->label_removed = true;
      WarnLabelRemoved(job, queue->workload.exists ? wl : nullptr);
      break;
    case Membership::kQueued:
      queue->wanted = true;
      break;
  }
  if (!queue->name_taken_by.empty()) return Status::Ok();
  const Json pod = rank_pod_(job);
  if (!queue->workload.exists) {
    return facts_.ReadPriority(job, pod, &queue->priority, &queue->priority_class_missing);
  }
  queue->priority = api::WorkloadPriorityOf(*wl);
  // Kueue's UpdateWorkloadPriority: only a Workload without a class or with a
  // WorkloadPriorityClass follows the job's label.
  if (queue->priority.kind != api::WorkloadPriority::Kind::kPriorityClass &&
      kube::Label(job.object, api::kPriorityClassLabel) != api::WorkloadPriorityClass(*wl)) {
    PETNAME_RETURN_IF_ERROR(
        facts_.ReadPriority(job, pod, &queue->priority, &queue->priority_class_missing));
  }
  const Json wanted = Wanted(job, *queue, *wl);
  if (!wanted.is_null()) queue->drift = api::CompareWorkload(*wl, wanted);
  return Status::Ok();
}

Status QueueSync::FindWorkload(const api::Job& job, QueueState* queue, Json* wl) const {
  // Kueue's own kinds keep one Workload per job; a second one (made by hand) is ignored.
  const std::string& name = queue->workload.name;
  std::vector<Json> mine = workloads_->List([&](const Json& o) {
    return kube::Namespace(o) == job.ns && kube::Name(o) == name &&
           kube::IsControlledBy(o, job.uid);
  });
  if (mine.empty()) return Lookup(job, queue, wl);
  *wl = mine.front();
  queue->workload = api::WorkloadStateFromJson(*wl);
  return Status::Ok();
}

Status QueueSync::LabelDefaultQueue(const api::Job& job) const {
  const Json patch = {{"metadata",
                       {{"resourceVersion", kube::ResourceVersion(job.object)},
                        {"labels", {{api::kQueueNameLabel, kDefaultLocalQueue}}}}}};
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("PATCH", api::JobsPath(job.ns) + "/" + job.name, &patch,
                                      &resp, "application/merge-patch+json"));
  if (resp.code == 409) {
    return Status::FailedPrecondition("job " + job.name + " is stale (409); retrying");
  }
  if (resp.code != 200 && resp.code != 404) {
    return Status::Unavailable("label job " + job.name + ": " + kube::ApiMessage(resp));
  }
  if (resp.code == 200) {
    events_->Record(job.object, "Normal", "DefaultQueue",
                    std::string("labelled ") + api::kQueueNameLabel + ": " + kDefaultLocalQueue +
                        ": the job had no queue and its namespace has a LocalQueue named " +
                        kDefaultLocalQueue);
  }
  return Status::Ok();
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
    queue->name_taken_by = WorkloadHolder(resp.body);
    return Status::Ok();
  }
  if (resp.code != 404)
    return Status::Unavailable("get Workload " + name + ": " + kube::ApiMessage(resp));
  return Status::Ok();
}

Json QueueSync::Wanted(const api::Job& job, const QueueState& queue, const Json& wl) const {
  if (job.spec.replicas <= 0) return Json();
  Json wanted =
      api::BuildWorkload(job, rank_pod_(job), queue.priority, facts_.config().label_keys_to_copy);
  if (queue.label_removed) {
    wanted["spec"]["queueName"] = wl.value("/spec/queueName"_json_pointer, std::string());
  }
  return wanted;
}

void QueueSync::WarnLabelRemoved(const api::Job& job, const Json* wl) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::string& warned = label_removed_warned_[kube::Key(job.ns, job.name)];
    if (warned == job.uid) return;
    warned = job.uid;
  }
  const std::string removed = std::string("label ") + api::kQueueNameLabel + " was removed";
  events_->Record(
      job.object, "Warning", "QueueLabelRemoved",
      wl == nullptr ? removed +
                          " before the job had a Workload: it waits with no rank pod (none runs "
                          "without an admission); put the label back, or delete the job and create "
                          "it without the label"
                    : removed + ", but the job has Workload " + kube::Name(*wl) + " in queue " +
                          wl->value("/spec/queueName"_json_pointer, std::string()) +
                          ": Kueue keeps governing the job by it (no rank pod runs unless it is "
                          "admitted); delete the job to take it out of Kueue");
}

Status QueueSync::ApplyFlavors(const QueueState& queue, const Json& wl, api::Job* job,
                               bool* refused) const {
  *refused = false;
  const api::WorkloadState& state = queue.workload;
  if (!queue.wanted || !state.admitted || state.evicted) return Status::Ok();
  std::set<std::string> names;
  for (const auto& [resource, flavor] : state.flavors) names.insert(flavor);
  std::vector<Json> flavors;
  for (const std::string& name : names) {
    kube::Response resp;
    PETNAME_RETURN_IF_ERROR(
        client_->Do("GET", std::string(kKueueApis) + "/resourceflavors/" + name, nullptr, &resp));
    if (resp.code != 200) {
      return Status::Unavailable("get ResourceFlavor " + name + ": " + kube::ApiMessage(resp));
    }
    flavors.push_back(resp.body);
  }
  Json updates = Json::array({api::KueuePodLabels(wl)});
  for (const Json& u : state.pod_set_updates) updates.push_back(u);
  Status merged = api::TopologyRefusal(state, flavors);
  if (merged.ok()) merged = api::MergeAdmission(flavors, updates, &job->spec);
  if (merged.ok()) return Status::Ok();
  const std::string why = "the job cannot start as Kueue admitted it: " + merged.message();
  PETNAME_RETURN_IF_ERROR(
      writer_.WriteStatus(api::FinishWorkload(wl, kFailedToStart, why, kube::NowUnix())));
  events_->Record(job->object, "Warning", kFailedToStart,
                  why + "; Workload " + state.name + " is finished and its quota freed");
  *refused = true;
  return Status::Ok();
}

Status QueueSync::ReleaseOrphans(const std::string& key, const std::string& live_uid,
                                 const std::vector<Json>& pods, int64_t* recheck_in) const {
  *recheck_in = 0;
  if (live_uid.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    label_removed_warned_.erase(key);
  }
  if (workloads_ == nullptr) return Status::Ok();
  const std::vector<Json> left = workloads_->List([&](const Json& o) {
    return kube::Key(kube::Namespace(o), kube::Label(o, api::kJobNameLabel)) == key;
  });
  const int64_t now = kube::NowUnix();
  std::vector<api::ObservedPod> others;
  for (const Json& p : pods) {
    if (live_uid.empty() || !kube::IsControlledBy(p, live_uid))
      others.push_back(api::PodFromJson(p));
  }
  if (const std::optional<int64_t> in = NextGraceEnd(others, now); in && !left.empty()) {
    *recheck_in = *in + 1;
  }
  Status first;
  for (const Json& wl : OrphanedWorkloads(left, pods, live_uid, now)) {
    Status s = writer_.RemoveFinalizer(wl);
    if (first.ok()) first = s;
  }
  return first;
}

Status QueueSync::Act(const api::Job& requested, WorkloadAction action,
                      const api::JobStatus& status, const QueueState& queue, const Json& wl,
                      const std::vector<api::ObservedPod>& pods) const {
  if (!queue.wanted) return Status::Ok();
  const int64_t now = kube::NowUnix();
  if (ReleaseWorkload(queue.workload, pods, now)) return writer_.RemoveFinalizer(wl);
  switch (action) {
    case WorkloadAction::kCreate:
      return writer_.Create(requested, Wanted(requested, queue, Json()));
    case WorkloadAction::kUpdate:
      return writer_.Update(requested, queue, wl, Wanted(requested, queue, wl));
    case WorkloadAction::kReplace:
      return writer_.Replace(requested, queue, wl);
    case WorkloadAction::kClearReservation:
      spdlog::info("{}/{}: evicted ({}), no pod left: clearing the Workload's reservation",
                   requested.ns, requested.name, queue.workload.evicted_reason);
      return writer_.WriteStatus(api::ClearReservation(wl, now));
    case WorkloadAction::kFinish: {
      const bool ok = status.phase == api::JobPhase::kSucceeded;
      const api::Condition* c =
          api::FindCondition(status.conditions, ok ? api::kSucceeded : api::kFailed);
      return writer_.WriteStatus(api::FinishWorkload(wl, ok ? "Succeeded" : "Failed",
                                                     c != nullptr ? c->message : "", now));
    }
    case WorkloadAction::kNone:
      break;
  }
  const std::optional<api::WorkloadCondition> ready =
      WorkloadPodsReady(queue.workload, api::ConditionIs(status.conditions, api::kPodsReady, true));
  if (!ready) return Status::Ok();
  return writer_.WriteStatus(api::SetWorkloadPodsReady(wl, *ready, now));
}

}  // namespace petname::controller
