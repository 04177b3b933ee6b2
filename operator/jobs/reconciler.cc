#include "operator/jobs/reconciler.h"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>

#include <spdlog/spdlog.h>

#include "common/sha256.h"
#include "operator/api/conditions.h"
#include "operator/jobs/cache_shape.h"
#include "operator/jobs/desired.h"
#include "operator/jobs/gang.h"
#include "operator/jobs/progress_events.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"
#include "operator/kueue/workload.h"
#include "operator/logging/logging.h"
#include "operator/progress/trainer_progress.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// Creates in flight at most: a window that starts at 1 and grows by one with every create that
// succeeds (doubling per round trip, like the Job controller's slow-start batches, but without
// waiting for a whole batch), up to this bound.
constexpr size_t kMaxInFlight = 16;

// The progress that rank 0 of restart generation `generation` left in its termination message
// once its trainer exited 0 (progress::FinalProgress), else nullopt.
std::optional<api::Progress> LastProgress(const std::vector<api::ObservedPod>& pods, int generation,
                                          const std::optional<api::Progress>& scraped) {
  for (const api::ObservedPod& p : pods) {
    if (p.rank == 0 && p.restart_generation == generation && p.phase == "Succeeded" &&
        p.trainer_terminated && p.trainer_terminated->exit_code == 0) {
      return progress::FinalProgress(p.trainer_terminated->message, scraped);
    }
  }
  return std::nullopt;
}

// Before pods are created, their Secret (RendezvousSecret) with a fresh random value; created
// once (a 409 from an earlier round means it is there; Create checks who controls it).
Status WithRendezvousSecret(const api::Job& job, std::vector<Json>* create) {
  const bool pods = std::any_of(create->begin(), create->end(),
                                [](const Json& o) { return o.value("kind", "") == "Pod"; });
  if (!pods) return Status::Ok();
  std::string value;
  PETNAME_RETURN_IF_ERROR(RandomHex(32, &value));
  create->insert(create->begin(), RendezvousSecret(job, value));
  return Status::Ok();
}

}  // namespace

Reconciler::Reconciler(kube::RestClient* client, Caches caches, kube::EventRecorder* events,
                       ReconcileHooks hooks, bool kueue, NetworkPolicyOptions policy,
                       KueueConfig kueue_config)
    : client_(client),
      caches_(caches),
      events_(events),
      hooks_(std::move(hooks)),
      kueue_(kueue),
      policy_(std::move(policy)),
      queue_sync_(client, caches.workloads, events, std::move(kueue_config),
                  [](const api::Job& j) { return RankPod(j, 0); }) {}

Status Reconciler::Reconcile(const std::string& key, int64_t* requeue_after) {
  *requeue_after = 0;
  Json obj;
  if (!caches_.jobs->Get(key, &obj)) {  // deleted: the GC removes the rest
    {
      std::lock_guard<std::mutex> lock(secrets_mu_);
      created_secrets_.erase(key);
    }
    if (!kueue_) return Status::Ok();
    return queue_sync_.ReleaseOrphans(key, "", caches_.pods->List([&](const Json& o) {
      return kube::Key(kube::Namespace(o), kube::Label(o, api::kJobNameLabel)) == key;
    }),
                                      requeue_after);
  }
  if (const int64_t bytes = TooLargeBytes(obj); bytes > 0) {
    const std::string why = TooLargeMessage("the job", bytes);
    spdlog::error("{}: {}", key, why);
    events_->Record(obj, "Warning", "TooLarge", why);
    return Status::Ok();  // retrying cannot help; a smaller job brings the key back
  }
  api::Job job;
  Status parsed = api::JobFromJson(obj, &job);
  if (!parsed.ok()) {
    spdlog::error("{}: {}", key, parsed.message());
    return Status::Ok();  // retrying cannot help; a spec change brings the key back
  }
  auto mine = [&](const Json& o) {
    return kube::Namespace(o) == job.ns && kube::Label(o, api::kJobNameLabel) == job.name;
  };
  Observed observed{caches_.pods->List(mine), caches_.services->List(mine), {}, {}};
  if (caches_.network_policies != nullptr) {
    observed.network_policies = caches_.network_policies->List(mine);
  }
  PodGroupState group = PodGroupState::kNotWanted;
  if (job.spec.gang_enabled) {
    PETNAME_RETURN_IF_ERROR(ObservePodGroup(job, &group, &observed.pod_groups));
  }

  std::vector<api::ObservedPod> owned;
  for (const Json& p : observed.pods) {
    if (kube::IsControlledBy(p, job.uid)) owned.push_back(api::PodFromJson(p));
  }
  const api::Job requested = job;
  QueueState queue;
  Json workload;
  int64_t orphans_in = 0;
  if (kueue_) {
    PETNAME_RETURN_IF_ERROR(queue_sync_.ReleaseOrphans(key, job.uid, observed.pods, &orphans_in));
  }
  if (kueue_) {
    const bool first_look = job.status.phase == api::JobPhase::kUnset && owned.empty();
    PETNAME_RETURN_IF_ERROR(queue_sync_.Observe(job, first_look, &queue, &workload));
    // Labelled for the default LocalQueue: the label's watch event brings the job back.
    if (queue.default_queue) return queue_sync_.LabelDefaultQueue(job);
    ApplyAdmission(queue, &job.spec);
  }
  Plan plan = ComputeStatus(job, owned, group, kube::NowUnix(), queue);
  if (hooks_.progress != nullptr) hooks_.progress->Apply(key, job.status, &plan.status);
  if (std::optional<api::Progress> last =
          LastProgress(owned, plan.status.restarts, plan.status.progress)) {
    if (hooks_.progress != nullptr) {
      // Stored, so that the reconciles after the pod is gone keep it.
      hooks_.progress->Put(key, *last, kube::NowUnix());
      hooks_.progress->Apply(key, job.status, &plan.status);
    } else {
      plan.status.progress = last;
    }
  }
  for (JobEvent& e : ProgressEvents(job.status, plan.status)) plan.events.push_back(std::move(e));
  if (plan.delete_job) return DeleteJob(job);
  if (plan.status != job.status) {
    PETNAME_RETURN_IF_ERROR(WriteStatus(job, plan.status));
    for (const JobEvent& e : plan.events) {
      spdlog::info("{}: {} {}: {}", key, e.type, e.reason, e.message);
      events_->Record(job.object, e.type, e.reason, e.message);
    }
  }
  job.status = plan.status;

  Actions actions = Diff(job, Desired(job, plan.pods, policy_), observed);
  const bool creates_pods = std::any_of(actions.create.begin(), actions.create.end(),
                                        [](const Json& o) { return o.value("kind", "") == "Pod"; });
  if (creates_pods && queue.wanted) {  // the flavor only matters to pods not created yet
    bool refused = false;
    PETNAME_RETURN_IF_ERROR(queue_sync_.ApplyFlavors(queue, workload, &job, &refused));
    if (refused) return Status::Ok();  // its Workload is finished: that change fails the job
    actions = Diff(job, Desired(job, plan.pods, policy_), observed);
  }
  for (const std::string& name : actions.conflicts) {
    spdlog::warn("{}: {} exists and is not controlled by this job; leaving it alone", key, name);
  }
  for (const Json& group : actions.update) {  // before the pods the gang scheduler places
    PETNAME_RETURN_IF_ERROR(UpdatePodGroup(job, group));
  }
  PETNAME_RETURN_IF_ERROR(WithRendezvousSecret(job, &actions.create));
  Status acted = CreateAll(job, actions.create, !owned.empty());
  for (const std::string& name : actions.delete_pods) {
    Status s = DeletePod(job, name);
    if (acted.ok()) acted = s;
  }
  if (Status s = queue_sync_.Act(requested, plan.workload, plan.status, queue, workload, owned);
      acted.ok())
    acted = s;
  *requeue_after = plan.requeue_after;
  if (orphans_in > 0 && (*requeue_after == 0 || orphans_in < *requeue_after)) {
    *requeue_after = orphans_in;
  }
  return acted;
}

Status Reconciler::ObservePodGroup(const api::Job& job, PodGroupState* state,
                                   std::vector<Json>* groups) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("GET", PodGroupsPath(job.spec, job.ns) + "/" + job.name, nullptr, &resp));
  if (resp.code == 200) {
    *state = PodGroupState::kPresent;
    groups->push_back(resp.body);
    return Status::Ok();
  }
  if (resp.code == 404) {
    // A served resource answers with a Status naming it; an unknown API path does not.
    const bool served = kube::StringAt(resp.body, "/details/kind") == "podgroups";
    *state = served ? PodGroupState::kMissing : PodGroupState::kUnavailable;
    return Status::Ok();
  }
  return Status::Unavailable("get PodGroup " + job.name + ": " + kube::ApiMessage(resp));
}

Status Reconciler::UpdatePodGroup(const api::Job& job, const Json& group) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("PUT", PodGroupsPath(job.spec, job.ns) + "/" + kube::Name(group), &group, &resp));
  if (resp.code == 200) {
    spdlog::info("{}/{}: PodGroup minMember {}", job.ns, job.name,
                 group.value("/spec/minMember"_json_pointer, 0));
    return Status::Ok();
  }
  if (resp.code == 409)
    return Status::FailedPrecondition("PodGroup " + job.name + " is stale (409)");
  return Status::Unavailable("update PodGroup " + job.name + ": " + kube::ApiMessage(resp));
}

Status Reconciler::DeleteJob(const api::Job& job) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "DELETE", api::JobsPath(job.ns) + "/" + job.name + "?propagationPolicy=Background", nullptr,
      &resp));
  if (resp.code == 200 || resp.code == 202 || resp.code == 404) {
    spdlog::info("{}/{}: deleted (ttlSecondsAfterFinished {} s passed)", job.ns, job.name,
                 job.spec.ttl_seconds_after_finished);
    return Status::Ok();
  }
  return Status::Unavailable("delete job " + job.name + ": " + kube::ApiMessage(resp));
}

Status Reconciler::CreateAll(const api::Job& job, const std::vector<Json>& objects,
                             bool pods_exist) {
  std::mutex mu;
  std::condition_variable done;
  size_t running = 0;
  size_t succeeded = 0;
  Status first;
  std::vector<std::future<void>> tasks;
  tasks.reserve(objects.size());
  {
    std::unique_lock<std::mutex> lock(mu);
    for (size_t i = 0; i < objects.size(); ++i) {
      done.wait(lock,
                [&] { return !first.ok() || running < std::min(kMaxInFlight, succeeded + 1); });
      if (!first.ok()) break;  // stop early, as the Job controller does
      ++running;
      tasks.push_back(
          std::async(std::launch::async, [&, i, tags = logging::ReconcileScope::Current()] {
            logging::ReconcileScope scope(tags);
            Status s = Create(job, objects[i], pods_exist);
            std::lock_guard<std::mutex> guard(mu);
            --running;
            if (s.ok()) {
              ++succeeded;
            } else if (first.ok()) {
              first = s;
            }
            done.notify_one();
          }));
    }
  }
  for (auto& t : tasks) t.get();
  return first;
}

Status Reconciler::Create(const api::Job& job, const Json& obj, bool pods_exist) {
  const std::string kind = obj.value("kind", "");
  const std::string path = kind == "PodGroup"        ? PodGroupsPath(job.spec, job.ns)
                           : kind == "NetworkPolicy" ? NetworkPoliciesPath(job.ns)
                                                     : kube::CorePath(job.ns, kind);
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("POST", path, &obj, &resp));
  if (resp.code == 201 || resp.code == 200) {
    ++creates_;
    if (kind == "Secret") RememberSecret(job);
    spdlog::debug("{}/{}: created {} {}", job.ns, job.name, kind, kube::Name(obj));
    return Status::Ok();
  }
  if (resp.code == 409 && kind == "Secret") {
    // A conflict after a retried create is most likely this create's own first attempt, answered
    // with an error after it landed.
    if (resp.retried) RememberSecret(job);
    if (pods_exist || CreatedSecret(job)) return Status::Ok();
    return ReplaceSecret(job, path, kube::Name(obj));
  }
  if (resp.code == 409) {  // exists: ours (the cache lags) or someone else's
    kube::Response got;
    PETNAME_RETURN_IF_ERROR(client_->Do("GET", path + "/" + kube::Name(obj), nullptr, &got));
    if (got.code == 200 && !kube::IsControlledBy(got.body, job.uid)) {
      spdlog::warn("{}/{}: {} {} exists and is not controlled by this job; leaving it alone",
                   job.ns, job.name, kind, kube::Name(obj));
    }
    return Status::Ok();
  }
  const std::string failure =
      "create " + kind + " " + kube::Name(obj) + ": " + kube::ApiMessage(resp);
  if (resp.code == 422 || resp.code == 403) {
    // Invalid (a spec.template field the API server refuses) or Forbidden by admission (Pod
    // Security, ResourceQuota): say so on the job, as the Job controller does.
    events_->Record(job.object, "Warning", "FailedCreate", failure);
  }
  return Status::Unavailable(failure);
}

bool Reconciler::CreatedSecret(const api::Job& job) {
  std::lock_guard<std::mutex> lock(secrets_mu_);
  auto it = created_secrets_.find(kube::Key(job.ns, job.name));
  return it != created_secrets_.end() && it->second == job.uid;
}

void Reconciler::RememberSecret(const api::Job& job) {
  std::lock_guard<std::mutex> lock(secrets_mu_);
  created_secrets_[kube::Key(job.ns, job.name)] = job.uid;
}

Status Reconciler::ReplaceSecret(const api::Job& job, const std::string& path,
                                 const std::string& name) {
  kube::Response got;
  PETNAME_RETURN_IF_ERROR(client_->GetMetadata(path + "/" + name, &got));
  if (got.code == 404) return Status::FailedPrecondition("Secret " + name + " went meanwhile");
  if (got.code != 200)
    return Status::Unavailable("get Secret " + name + ": " + kube::ApiMessage(got));
  if (!kube::IsControlledBy(got.body, job.uid)) {
    const std::string why = "Secret " + name +
                            " exists and is not controlled by this job; the operator leaves it "
                            "alone and creates no rank pod until it is deleted or the job renamed";
    events_->Record(job.object, "Warning", "RendezvousSecretConflict", why);
    return Status::FailedPrecondition(why);
  }
  // The job's own, from a pass whose answer was lost or a process before this one: whoever made
  // it may still know its value (an ownerReference is no proof of who wrote it), and no pod uses
  // it yet. Deleted only as long as it is the Secret read above.
  const nlohmann::json options = {{"apiVersion", "v1"},
                                  {"kind", "DeleteOptions"},
                                  {"preconditions", {{"uid", kube::Uid(got.body)}}}};
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("DELETE", path + "/" + name, &options, &resp));
  if (resp.code != 200 && resp.code != 202 && resp.code != 404 && resp.code != 409) {
    return Status::Unavailable("delete Secret " + name + ": " + kube::ApiMessage(resp));
  }
  const std::string why = "Secret " + name +
                          " existed while the job had no pods, so its value may be known to "
                          "whoever made it; deleted it, a fresh one is created before the pods";
  if (resp.code != 409) events_->Record(job.object, "Normal", "RendezvousSecretReplaced", why);
  return Status::FailedPrecondition(why);
}

Status Reconciler::DeletePod(const api::Job& job, const std::string& name) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("DELETE", kube::CorePath(job.ns, "Pod") + "/" + name, nullptr, &resp));
  if (resp.code == 200 || resp.code == 202 || resp.code == 404) return Status::Ok();
  return Status::Unavailable("delete pod " + name + ": " + kube::ApiMessage(resp));
}

Status Reconciler::WriteStatus(const api::Job& job, const api::JobStatus& status) {
  Json body = job.object;
  body["status"] = api::JobStatusToJson(status);
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("PUT", api::JobsPath(job.ns) + "/" + job.name + "/status", &body, &resp));
  if (resp.code == 200) {
    spdlog::debug("{}/{}: status phase {}", job.ns, job.name, api::PhaseName(status.phase));
    if (hooks_.status_written) hooks_.status_written(job, job.status, status);
    return Status::Ok();
  }
  if (resp.code == 404) return Status::Ok();  // the job is gone
  if (resp.code == 409) {
    return Status::FailedPrecondition("status of " + job.name + " is stale (409); retrying");
  }
  return Status::Unavailable("update status of " + job.name + ": " + kube::ApiMessage(resp));
}

}  // namespace petname::controller
