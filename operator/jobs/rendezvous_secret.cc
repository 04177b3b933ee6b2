#include "operator/jobs/rendezvous_secret.h"

#include <algorithm>

#include "common/sha256.h"
#include "operator/jobs/job_metadata.h"

namespace petname::controller {

std::string RendezvousSecretName(const std::string& job) { return job + "-rendezvous"; }

nlohmann::json RendezvousSecret(const api::Job& job, const std::string& value) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", OwnedMetadata(job, RendezvousSecretName(job.name))},
          {"type", "Opaque"},
          {"stringData", {{"secret", value}}}};
}

Status WithRendezvousSecret(const api::Job& job, std::vector<nlohmann::json>* create) {
  const bool pods = std::any_of(create->begin(), create->end(), [](const nlohmann::json& o) {
    return o.value("kind", "") == "Pod";
  });
  if (!pods) return Status::Ok();
  std::string value;
  PETNAME_RETURN_IF_ERROR(RandomHex(32, &value));
  create->insert(create->begin(), RendezvousSecret(job, value));
  return Status::Ok();
}

}  // namespace petname::controller
