#include "operator/jobs/reconciler.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "operator/jobs/cache_shape.h"
#include "operator/jobs/gang.h"
#include "operator/jobs/progress_events.h"
#include "operator/jobs/rank_pod.h"
#include "operator/jobs/rendezvous_secret.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/kube/time.h"
#include "operator/kueue/workload.h"
#include "operator/logging/logging.h"
#include "operator/progress/trainer_progress.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

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

bool CreatesPods(const Actions& actions) {
  return std::any_of(actions.create.begin(), actions.create.end(),
                     [](const Json& o) { return o.value("kind", "") == "Pod"; });
}

// The sooner of the plan's next pass and the next look at a gone job's Workloads (0: none).
int64_t NextPass(int64_t plan_requeue_after, int64_t orphans_in) {
  if (orphans_in > 0 && (plan_requeue_after == 0 || orphans_in < plan_requeue_after)) {
    return orphans_in;
  }
  return plan_requeue_after;
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
                  [](const api::Job& j) { return RankPod(j, 0); }),
      writer_(client, events) {}

Status Reconciler::Reconcile(const std::string& key, int64_t* requeue_after) {
  *requeue_after = 0;
  Json obj;
  if (!caches_.jobs->Get(key, &obj)) return Gone(key, requeue_after);
  api::Job job;
  if (!Parse(key, obj, &job)) return Status::Ok();

  // 1. Observe.
  Observation seen;
  PETNAME_RETURN_IF_ERROR(Observe(key, &job, &seen));
  // Labelled for the default LocalQueue: the label's watch event brings the job back.
  if (seen.queue.default_queue) return queue_sync_.LabelDefaultQueue(job);

  // 2. Plan and status, written before acting.
  const Plan plan = PlanStatus(key, job, seen);
  if (plan.delete_job) return writer_.DeleteJob(job);
  PETNAME_RETURN_IF_ERROR(RecordStatus(key, job, plan));
  job.status = plan.status;

  // 3. Desired and diff.
  Actions actions;
  bool refused = false;
  PETNAME_RETURN_IF_ERROR(DiffDesired(plan, seen, &job, &actions, &refused));
  if (refused) return Status::Ok();  // its Workload is finished: that change fails the job

  // 4. Act.
  Status acted = Act(key, job, plan, seen, &actions);
  *requeue_after = NextPass(plan.requeue_after, seen.orphans_in);
  return acted;
}

Status Reconciler::Gone(const std::string& key, int64_t* requeue_after) {
  writer_.Forget(key);
  if (!kueue_) return Status::Ok();
  return queue_sync_.ReleaseOrphans(key, "", caches_.pods->List([&](const Json& o) {
    return kube::Key(kube::Namespace(o), kube::Label(o, api::kJobNameLabel)) == key;
  }),
                                    requeue_after);
}

bool Reconciler::Parse(const std::string& key, const Json& obj, api::Job* job) {
  if (const int64_t bytes = TooLargeBytes(obj); bytes > 0) {
    const std::string why = TooLargeMessage("the job", bytes);
    spdlog::error("{}: {}", key, why);
    events_->Record(obj, "Warning", "TooLarge", why);
    return false;  // a smaller job brings the key back
  }
  Status parsed = api::JobFromJson(obj, job);
  if (!parsed.ok()) {
    spdlog::error("{}: {}", key, parsed.message());
    return false;  // a spec change brings the key back
  }
  return true;
}

Status Reconciler::Observe(const std::string& key, api::Job* job, Observation* seen) {
  auto mine = [&](const Json& o) {
    return kube::Namespace(o) == job->ns && kube::Label(o, api::kJobNameLabel) == job->name;
  };
  seen->objects.pods = caches_.pods->List(mine);
  seen->objects.services = caches_.services->List(mine);
  if (caches_.network_policies != nullptr) {
    seen->objects.network_policies = caches_.network_policies->List(mine);
  }
  if (job->spec.gang_enabled) {
    PETNAME_RETURN_IF_ERROR(ObservePodGroup(*job, &seen->group, &seen->objects.pod_groups));
  }
  for (const Json& p : seen->objects.pods) {
    if (kube::IsControlledBy(p, job->uid)) seen->owned.push_back(api::PodFromJson(p));
  }
  seen->requested = *job;
  if (!kueue_) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(
      queue_sync_.ReleaseOrphans(key, job->uid, seen->objects.pods, &seen->orphans_in));
  const bool first_look = job->status.phase == api::JobPhase::kUnset && seen->owned.empty();
  PETNAME_RETURN_IF_ERROR(queue_sync_.Observe(*job, first_look, &seen->queue, &seen->workload));
  if (!seen->queue.default_queue) ApplyAdmission(seen->queue, &job->spec);
  return Status::Ok();
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

Plan Reconciler::PlanStatus(const std::string& key, const api::Job& job, const Observation& seen) {
  Plan plan = ComputeStatus(job, seen.owned, seen.group, kube::NowUnix(), seen.queue);
  if (hooks_.progress != nullptr) hooks_.progress->Apply(key, job.status, &plan.status);
  if (std::optional<api::Progress> last =
          LastProgress(seen.owned, plan.status.restarts, plan.status.progress)) {
    if (hooks_.progress != nullptr) {
      // Stored, so that the reconciles after the pod is gone keep it.
      hooks_.progress->Put(key, *last, kube::NowUnix());
      hooks_.progress->Apply(key, job.status, &plan.status);
    } else {
      plan.status.progress = last;
    }
  }
  for (JobEvent& e : ProgressEvents(job.status, plan.status)) plan.events.push_back(std::move(e));
  return plan;
}

Status Reconciler::RecordStatus(const std::string& key, const api::Job& job, const Plan& plan) {
  if (plan.status == job.status) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(WriteStatus(job, plan.status));
  for (const JobEvent& e : plan.events) {
    spdlog::info("{}: {} {}: {}", key, e.type, e.reason, e.message);
    events_->Record(job.object, e.type, e.reason, e.message);
  }
  return Status::Ok();
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

Status Reconciler::DiffDesired(const Plan& plan, const Observation& seen, api::Job* job,
                               Actions* actions, bool* refused) {
  *actions = Diff(*job, Desired(*job, plan.pods, policy_), seen.objects);
  // The flavor only matters to pods not created yet.
  if (!CreatesPods(*actions) || !seen.queue.wanted) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(queue_sync_.ApplyFlavors(seen.queue, seen.workload, job, refused));
  if (!*refused) *actions = Diff(*job, Desired(*job, plan.pods, policy_), seen.objects);
  return Status::Ok();
}

Status Reconciler::Act(const std::string& key, const api::Job& job, const Plan& plan,
                       const Observation& seen, Actions* actions) {
  for (const std::string& name : actions->conflicts) {
    spdlog::warn("{}: {} exists and is not controlled by this job; leaving it alone", key, name);
  }
  for (const Json& group : actions->update) {  // before the pods the gang scheduler places
    PETNAME_RETURN_IF_ERROR(writer_.UpdatePodGroup(job, group));
  }
  PETNAME_RETURN_IF_ERROR(WithRendezvousSecret(job, &actions->create));
  Status acted = writer_.CreateAll(job, actions->create, !seen.owned.empty());
  for (const std::string& name : actions->delete_pods) {
    Status s = writer_.DeletePod(job, name);
    if (acted.ok()) acted = s;
  }
  if (Status s = queue_sync_.Act(seen.requested, plan.workload, plan.status, seen.queue,
                                 seen.workload, seen.owned);
      acted.ok()) {
    acted = s;
  }
  return acted;
}

}  // namespace petname::controller
