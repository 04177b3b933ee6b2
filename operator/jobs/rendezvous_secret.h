// The rendezvous Secret of a PetNameTrainingJob: J-rendezvous, holding the ranks' rendezvous
// secret (key "secret"), controlled by the job, so it is deleted with it. Its ranks read it as
// PETNAME_RENDEZVOUS_SECRET and sign what they exchange at rendezvous with it
// (trainer/distributed/peer_check.h). The reconciler creates it, with a fresh random value, before
// the job's pods; the operator never reads its data. One that exists already while the job has no
// pods is replaced, one the job does not control is left alone (secret_ownership.h). Pure but for
// the random value.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"

namespace petname::controller {

std::string RendezvousSecretName(const std::string& job);

// The Secret with `value` (stringData, type Opaque) and the job's metadata (job_metadata.h).
nlohmann::json RendezvousSecret(const api::Job& job, const std::string& value);

// When `create` (a Diff's create list) holds a pod: the job's Secret with a fresh random value
// first, so that it exists before the pods. Created once: a 409 from an earlier round means it is
// there (secret_ownership.h decides whose it is).
Status WithRendezvousSecret(const api::Job& job, std::vector<nlohmann::json>* create);

}  // namespace petname::controller
