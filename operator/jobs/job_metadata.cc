#include "operator/jobs/job_metadata.h"

#include "operator/kube/object.h"

namespace petname::controller {

nlohmann::json OwnedMetadata(const api::Job& job, const std::string& name) {
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : job.spec.labels) labels[k] = v;
  labels[api::kNameLabel] = api::kAppName;
  labels[api::kJobNameLabel] = job.name;
  return {{"name", name},
          {"namespace", job.ns},
          {"labels", labels},
          {"ownerReferences", nlohmann::json::array({kube::ControllerRef(job.object)})}};
}

}  // namespace petname::controller
