#include "operator/kueue/workload_writer.h"

#include <spdlog/spdlog.h>

#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"
#include "operator/kueue/workload.h"
#include "operator/kueue/workload_drift.h"

namespace petname::controller {
namespace {

using Json = nlohmann::json;

constexpr char kKueueApis[] = "/apis/kueue.x-k8s.io/v1beta2";

// What changed, for an event.
std::string Changes(const api::WorkloadDrift& d) {
  std::string out;
  auto add = [&](bool changed, const char* what) {
    if (changed) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  add(d.pod_sets, "replicas or resources");
  add(d.queue, "queue");
  add(d.priority_class, "priority class");
  return out;
}

}  // namespace

std::string WorkloadsPath(const std::string& ns) {
  return ns.empty() ? std::string(kKueueApis) + "/workloads"
                    : std::string(kKueueApis) + "/namespaces/" + ns + "/workloads";
}

std::string WorkloadHolder(const Json& wl) {
  for (const Json& ref : wl.value("/metadata/ownerReferences"_json_pointer, Json::array())) {
    if (ref.is_object() && ref.value("controller", false)) {
      return "a Workload controlled by " + ref.value("kind", "") + " " + ref.value("name", "");
    }
  }
  return "a Workload that no job controls";
}

WorkloadWriter::WorkloadWriter(kube::RestClient* client, kube::EventRecorder* events)
    : client_(client), events_(events) {}

Status WorkloadWriter::Create(const api::Job& job, const Json& wl) const {
  if (wl.is_null()) return Status::Ok();
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
                                        ": exists (409), read back: " + kube::ApiMessage(got));
    }
    if (kube::IsControlledBy(got.body, job.uid)) return Status::Ok();
    const std::string why = "the job's Workload " + kube::Name(wl) +
                            " cannot be created: " + WorkloadHolder(got.body) + " holds that name";
    events_->Record(job.object, "Warning", "WorkloadConflict", why);
    return Status::FailedPrecondition(why);
  }
  const std::string failure = "create Workload " + kube::Name(wl) + ": " + kube::ApiMessage(resp);
  if (resp.code == 422 || resp.code == 403 || resp.code == 400) {
    events_->Record(job.object, "Warning", "FailedCreateWorkload", failure);
  }
  return Status::Unavailable(failure);
}

Status WorkloadWriter::Put(const Json& wl, const std::string& subresource) const {
  const std::string what = "Workload " + kube::Name(wl) + subresource;
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "PUT", WorkloadsPath(kube::Namespace(wl)) + "/" + kube::Name(wl) + subresource, &wl, &resp));
  if (resp.code == 200 || resp.code == 404) return Status::Ok();
  if (resp.code == 409) return Status::FailedPrecondition(what + " is stale (409); retrying");
  return Status::Unavailable("update " + what + ": " + kube::ApiMessage(resp));
}

Status WorkloadWriter::Update(const api::Job& job, const QueueState& queue, const Json& wl,
                              const Json& wanted) const {
  if (wanted.is_null()) return Status::Ok();
  PETNAME_RETURN_IF_ERROR(Put(api::WithSpecOf(wl, wanted, queue.workload.quota_reserved), ""));
  events_->Record(
      job.object, "Normal", "UpdatedWorkload",
      "updated Workload " + kube::Name(wl) + " to match the job (" + Changes(queue.drift) + ")");
  return Status::Ok();
}

Status WorkloadWriter::Replace(const api::Job& job, const QueueState& queue, const Json& wl) const {
  // Preconditions: only the Workload as compared goes; one Kueue wrote since is compared again.
  const Json options = {{"apiVersion", "v1"},
                        {"kind", "DeleteOptions"},
                        {"preconditions",
                         {{"uid", kube::StringAt(wl, "/metadata/uid")},
                          {"resourceVersion", kube::StringAt(wl, "/metadata/resourceVersion")}}}};
  kube::Response resp;
  PETNAME_RETURN_IF_ERROR(client_->Do(
      "DELETE", WorkloadsPath(kube::Namespace(wl)) + "/" + kube::Name(wl), &options, &resp));
  if (resp.code == 404) return Status::Ok();
  if (resp.code == 409) {
    return Status::FailedPrecondition("Workload " + kube::Name(wl) + " is stale (409); retrying");
  }
  if (resp.code != 200 && resp.code != 202) {
    return Status::Unavailable("delete Workload " + kube::Name(wl) + ": " + kube::ApiMessage(resp));
  }
  events_->Record(job.object, "Normal", "DeletedWorkload",
                  "deleted Workload " + kube::Name(wl) +
                      ", which holds quota and no longer matches the job (" + Changes(queue.drift) +
                      "): the job gets a new one once its ranks are gone");
  return Status::Ok();
}

Status WorkloadWriter::WriteStatus(const Json& wl) const { return Put(wl, "/status"); }

Status WorkloadWriter::RemoveFinalizer(const Json& wl) const {
  spdlog::info("{}/{}: the job's pods are gone: removing {} from Workload {}", kube::Namespace(wl),
               kube::Label(wl, api::kJobNameLabel), api::kResourceInUseFinalizer, kube::Name(wl));
  return Put(api::WithoutResourceInUse(wl), "");
}

}  // namespace petname::controller
