// The environment variables of the rank containers that belong to the operator and the trainer's
// launcher: RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (the rendezvous) and every name
// starting with PET_ (their Kubeflow copies, PET_NNODES, ...) or PETNAME_ (the job's identity
// PETNAME_JOB_UID / PETNAME_JOB_NAME / PETNAME_NAMESPACE, which the trainer records as the owner
// of its checkpoints, and PETNAME_RENDEZVOUS_SECRET, which authenticates the rendezvous). Neither
// spec.env nor spec.template's trainer container may set one: a duplicate name in a container's
// env takes the last value, so such an entry could give a job another job's identity or switch
// the rendezvous check off. OMP_NUM_THREADS is not reserved: spec.env may set it
// (jobs/train_args.h, RankThreads); nor is PETNAME_KATIB_METRICS_FILE, a trainer setting the
// operator never sets (docs/tasks/katib.md: a trial job names the file Katib's collector
// reads).
//
// This list is the one source of truth: the CRDs' CEL rules on spec.env and on the template's
// trainer env must read as ReservedEnvCel says (tests/operator/api/reserved_env_test.cc), and
// the operator checks jobs the rules never saw (stored before them) with CheckSpecEnv. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::api {

// The reserved names and prefixes, in the order the CRDs' rules list them, and the names under
// PETNAME_ that a job may set.
const std::vector<std::string>& ReservedEnvNames();
const std::vector<std::string>& ReservedEnvPrefixes();
const std::vector<std::string>& OpenPetnameEnvNames();

bool ReservedEnvName(const std::string& name);

// The CEL condition that the env entry variable `var` has no reserved name, e.g. for "e":
// !(e.name in ['RANK', ...]) && !e.name.startsWith('PET_') &&
// (!e.name.startsWith('PETNAME_') || e.name in ['PETNAME_KATIB_METRICS_FILE'])
std::string ReservedEnvCel(const std::string& var);

// OK when no entry of spec.env (`env`, a list) has a reserved name; else InvalidArgument naming
// every such name.
Status CheckSpecEnv(const nlohmann::json& env);

}  // namespace petname::api
