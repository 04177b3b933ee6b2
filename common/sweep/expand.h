// From a sweep's spec to its trials: which parameter values each trial gets, its name, and
// its PetNameTrainingJob spec. Pure and deterministic: the same spec always yields the same
// trials in the same order, so a restarted operator (or a re-run `petname sweep`) names and
// configures every trial exactly as before and never duplicates one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/sweep/spec.h"

namespace petname::sweep {

// One trial's assignment: (parameter name, value), in the order of spec.parameters.
using Assignment = std::vector<std::pair<std::string, Value>>;

// The values a grid takes for `p`: its list, or min, min+step, ... up to max (inclusive within
// 1e-9 of a step, integer parameters rounded). Random ranges have no grid values.
std::vector<Value> GridValues(const Parameter& p);
// The number of GridValues(p), computed without building them (a range with a tiny step would
// be huge); 0 for a random range without step.
int64_t GridSize(const Parameter& p);

// The trials of `spec`, index 0 first:
//  - grid: the Cartesian product, the last parameter varying fastest, cut to
//    max_trial_count when that is set;
//  - random: max_trial_count (default 10) draws from a generator seeded with spec.seed; a list
//    is sampled uniformly; a linear range with a step (integer parameters: step 1 when not
//    given) uniformly among its grid points, one without uniformly in [min, max]; scale log
//    uniformly in log space, then rounded to the nearest grid point / integer.
// Fails only for a spec SweepSpecFromJson would refuse.
Status ExpandTrials(const SweepSpec& spec, std::vector<Assignment>* out);

// The trial's name: "<sweep>-<index>" with the index in 3 digits ("seed-grid-007"); the job
// name of the trial on Kubernetes and its directory under `petname sweep --dir`.
std::string TrialName(const std::string& sweep_name, int index);

// `job_template` with every assigned field set (dotted paths create missing objects), e.g.
// {"replicas":2,"training":{"learningRate":0.004}}. Integers are written as JSON integers.
Json ApplyAssignment(const Json& job_template, const Assignment& assignment);

// "replicas=2 training.batchSizePerReplica=1024 training.learningRate=0.004".
std::string DescribeAssignment(const Assignment& assignment);

}  // namespace petname::sweep
