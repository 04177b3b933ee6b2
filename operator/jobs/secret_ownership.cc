#include "operator/jobs/secret_ownership.h"

#include <nlohmann/json.hpp>

#include "operator/kube/api_paths.h"
#include "operator/kube/object.h"

namespace petname::controller {

SecretOwnership::SecretOwnership(kube::RestClient* client, kube::EventRecorder* events)
    : client_(client), events_(events) {}

void SecretOwnership::Remember(const api::Job& job) {
  std::lock_guard<std::mutex> lock(mu_);
  created_[kube::Key(job.ns, job.name)] = job.uid;
}

void SecretOwnership::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  created_.erase(key);
}

bool SecretOwnership::Created(const api::Job& job) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = created_.find(kube::Key(job.ns, job.name));
  return it != created_.end() && it->second == job.uid;
}

Status SecretOwnership::OnConflict(const api::Job& job, const std::string& path,
                                   const std::string& name, const kube::Response& resp,
                                   bool pods_exist) {
  // A conflict after a retried create is most likely this create's own first attempt, answered
  // with an error after it landed.
  if (resp.retried) Remember(job);
  if (pods_exist || Created(job)) return Status::Ok();
  return Replace(job, path, name);
}

Status SecretOwnership::Replace(const api::Job& job, const std::string& path,
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

}  // namespace petname::controller
