// The metadata of every object the operator makes for a PetNameTrainingJob (its Service,
// NetworkPolicy, rendezvous Secret and rank pods; the PodGroup has its own, gang.h): the job's
// namespace, the job's controller ownerReference (so the garbage collector deletes the object
// with the job) and the labels spec.labels, app.kubernetes.io/name=petname and
// petname.dev/job-name=<job>, the operator's winning. Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

// metadata {name, namespace, labels, ownerReferences} of an object named `name` for `job`.
nlohmann::json OwnedMetadata(const api::Job& job, const std::string& name);

}  // namespace petname::controller
