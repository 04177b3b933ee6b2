#include "operator/jobs/job_writer.h"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>

#include <spdlog/spdlog.h>

#include "operator/jobs/gang.h"
#include "operator/jobs/network_policy.h"
#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/logging/logging.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

// Creates in flight at most: a window that starts at 1 and grows by one with every create that
// succeeds (doubling per round trip, like the Job controller's slow-start batches, but without
// waiting for a whole batch), up to this bound.
constexpr size_t kMaxInFlight = 16;

}  // namespace

JobWriter::JobWriter(kube::RestClient* client, kube::EventRecorder* events)
    : client_(client), events_(events), secrets_(client, events) {}

Status JobWriter::CreateAll(const api::Job& job, const std::vector<Json>& objects,
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

Status JobWriter::Create(const api::Job& job, const Json& obj, bool pods_exist) {
  const std::string kind = obj.value("kind", "");
  const std::string path = kind == "PodGroup"        ? PodGroupsPath(job.spec, job.ns)
                           : kind == "NetworkPolicy" ? NetworkPoliciesPath(job.ns)
                                                     : kube::CorePath(job.ns, kind);
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do("POST", path, &obj, &resp));
  if (resp.code == 201 || resp.code == 200) {
    ++creates_;
    if (kind == "Secret") secrets_.Remember(job);
    spdlog::debug("{}/{}: created {} {}", job.ns, job.name, kind, kube::Name(obj));
    return Status::Ok();
  }
  if (resp.code == 409 && kind == "Secret") {
    return secrets_.OnConflict(job, path, kube::Name(obj), resp, pods_exist);
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

Status JobWriter::DeletePod(const api::Job& job, const std::string& name) {
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(
      client_->Do("DELETE", kube::CorePath(job.ns, "Pod") + "/" + name, nullptr, &resp));
  if (resp.code == 200 || resp.code == 202 || resp.code == 404) return Status::Ok();
  return Status::Unavailable("delete pod " + name + ": " + kube::ApiMessage(resp));
}

Status JobWriter::UpdatePodGroup(const api::Job& job, const Json& group) {
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

Status JobWriter::DeleteJob(const api::Job& job) {
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

}  // namespace petname::controller
