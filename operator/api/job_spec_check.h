// Checking a read PetNameTrainingJob spec (job_spec_read.h) for what the operator can act on, and
// the defaults that depend on other members: backend from gpusPerReplica, dataset.path from
// dataset.url (DefaultFetchPath), scheduling.gang.minAvailable from replicas. The checks are the
// CRD's rules the operator relies on, re-applied to objects stored before a rule existed.
#pragma once

#include "common/status.h"
#include "operator/api/job.h"

namespace petname::api {

// Applies the dependent defaults to *spec, then InvalidArgument naming the first member the
// operator cannot act on (see JobFromJson, job.h).
Status CheckJobSpec(JobSpec* spec);

}  // namespace petname::api
