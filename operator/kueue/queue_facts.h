// The reads the Kueue decisions need besides the job's Workload (queue_sync.h does that one),
// each a GET or a LIST of the API server, made only when a decision asks for it:
//  - the priority of a Workload to be created (api::WorkloadPriority: the job's
//    WorkloadPriorityClass, else the rank pods' PriorityClass, else the globalDefault one);
//  - whether Kueue manages a namespace (kueue_config.h), from the namespace's name alone when the
//    selector reads no other label (Kueue's default selector), else from the namespace's labels;
//  - whether a namespace has a LocalQueue named "default" (queue_membership.h).
// A 404 is an answer (the class, the namespace or the queue does not exist); another failure is
// Unavailable, and the job is reconciled again.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/kube/rest_client.h"
#include "operator/kueue/kueue_config.h"
#include "operator/kueue/workload.h"

namespace petname::controller {

class QueueFacts {
 public:
  QueueFacts(kube::RestClient* client, KueueConfig config);

  const KueueConfig& config() const { return config_; }

  // The priority for `job`, whose rank pod is `pod`; *missing when the class it names (the
  // label's WorkloadPriorityClass, or the pods' PriorityClass) does not exist (priority->kind and
  // name then say which).
  Status ReadPriority(const api::Job& job, const nlohmann::json& pod,
                      api::WorkloadPriority* priority, bool* missing) const;
  // Whether Kueue manages jobs in namespace `ns` (a namespace that is gone is not managed).
  Status NamespaceManaged(const std::string& ns, bool* managed) const;
  Status DefaultQueueExists(const std::string& ns, bool* exists) const;

 private:
  // GET `path`: *body on 200, *found false on 404, else Unavailable naming `what`.
  Status Get(const std::string& path, const std::string& what, bool* found,
             nlohmann::json* body) const;

  kube::RestClient* const client_;
  const KueueConfig config_;
};

}  // namespace petname::controller
