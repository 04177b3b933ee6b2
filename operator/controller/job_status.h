// ComputeStatus: the PetNameTrainingJob status implied by the job's previous status and the pods
// it controls. Pure (the caller passes `now`, RFC 3339). Phases in this version:
//   Pending   - pods created, not all ranks running yet
//   Running   - every rank is running (or already succeeded)
//   Succeeded - every rank succeeded
//   Failed    - a rank failed (rank restarts are not implemented yet, whatever the restart policy)
//   Suspended - spec.runPolicy.suspend
// Succeeded and Failed are final. Conditions Created/Running/Succeeded/Failed/Suspended follow the
// phase; counts active/ready/succeeded/failed are over controlled pods; startTime is set on the
// first computation, completionTime when a final phase is reached; observedGeneration is the
// job's generation.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

nlohmann::json ComputeStatus(const api::Job& job, const std::vector<nlohmann::json>& owned_pods,
                             const std::string& now);

}  // namespace petname::controller
