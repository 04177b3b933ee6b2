// Reading a PetNameTrainingJob's spec into api::JobSpec, one function per section of the spec
// (resources, dataset, training, checkpoint, runPolicy, scheduling, template, ...). Each member is
// optional and type-checked (an absent or null member keeps JobSpec's default, the CRD's); the
// first member of the wrong type is the error, named by its path (spec.<section>.<member> must
// be ...). What the values mean is checked afterwards (job_spec_check.h).
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"

namespace petname::api {

// Reads `spec_json` (the object's spec) over *spec's defaults; InvalidArgument names the first
// member of the wrong type. Values are not checked (CheckJobSpec does).
Status ReadJobSpec(const Json& spec_json, JobSpec* spec);

// Reads spec.metrics.port of `spec_json` into *port when present (left alone when absent);
// InvalidArgument when it is not an integer.
Status ReadMetricsPort(const Json& spec_json, int* port);

}  // namespace petname::api
