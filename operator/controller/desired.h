// Desired: the objects that should exist for a PetNameTrainingJob, computed by a pure function
// of the job and what was observed (no server, no clock), and Diff: what to create and delete to
// get there. Everything desired carries the job's controller ownerReference and the labels
// app.kubernetes.io/name=petname, petname.dev/job-name=<job>, petname.dev/rank=<i> (pods).
//
// For job J with N replicas in namespace NS:
//  - headless Service J (clusterIP None, publishNotReadyAddresses) selecting J's pods;
//  - pods J-rank-0 .. J-rank-(N-1), hostname J-rank-i, subdomain J, restartPolicy Never (the
//    operator handles restarts), env MASTER_ADDR=J-rank-0.J.NS.svc, MASTER_PORT, WORLD_SIZE, RANK,
//    LOCAL_RANK=0, their PET_* equivalents, PETNAME_JOB_NAME, PETNAME_NAMESPACE, the spec's env;
//    args of `petname train` from spec.training/dataset/checkpoint/metrics; nvidia.com/gpu limits;
//    checkpoint (claim or emptyDir) and dataset volumes; the metrics containerPort.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

using Json = nlohmann::json;

// The job's pods and services as the informers see them (selected by petname.dev/job-name; may
// include objects other owners made with the same labels).
struct Observed {
  std::vector<Json> pods;
  std::vector<Json> services;
};

struct DesiredState {
  std::vector<Json> services;
  std::vector<Json> pods;
  // Whether pods this job controls that are not desired get deleted. False once the job has
  // finished: its pods stay for inspection.
  bool prune = true;
};

std::string PodName(const std::string& job, int rank);

// The arguments after `petname train` for one rank.
std::vector<std::string> TrainArgs(const api::JobSpec& spec);

// Pure: depends only on the job (spec and the phase in its status).
DesiredState Desired(const api::Job& job);

struct Actions {
  std::vector<Json> create;              // services first, then pods in rank order
  std::vector<std::string> delete_pods;  // names of controlled pods not desired
  std::vector<std::string> conflicts;    // desired names held by objects this job does not own
};

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed);

}  // namespace petname::controller
