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
//    checkpoint (claim or emptyDir) and dataset volumes; the metrics containerPort; label
//    petname.dev/restart-generation=<status.restarts>, so pods of an earlier gang restart are
//    never taken for current ones (Diff deletes them);
//  - with scheduling.gang.enabled, the PodGroup (gang.h) and the pods' gang labels.
// Which pods exist is decided by ComputeStatus (job_status.h) as a PodAction.
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
  std::vector<Json> pod_groups;  // the job's PodGroup when it exists
};

// What should happen to the job's rank pods.
enum class PodAction {
  kRun,             // every rank of the current restart generation exists; others are deleted
  kStop,            // no rank pods (suspended, restarting, waiting for the PodGroup)
  kCleanupRunning,  // finished: delete the pods that have not finished, keep the rest
  kCleanupAll,      // finished: delete every pod
  kKeep,            // finished: keep every pod for inspection
};

struct DesiredState {
  std::vector<Json> services;
  std::vector<Json> pod_groups;  // created before the pods
  std::vector<Json> pods;
  PodAction action = PodAction::kRun;
};

std::string PodName(const std::string& job, int rank);

// The arguments after `petname train` for one rank.
std::vector<std::string> TrainArgs(const api::JobSpec& spec);

// The restart generation of a pod (its label; 0 when absent).
int PodGeneration(const Json& pod);

// Pure: depends only on the job (spec, status.restarts) and `action`.
DesiredState Desired(const api::Job& job, PodAction action = PodAction::kRun);

struct Actions {
  std::vector<Json> create;              // services, pod groups, then pods in rank order
  std::vector<std::string> delete_pods;  // controlled pods not desired (or of another generation)
  std::vector<std::string> conflicts;    // desired names held by objects this job does not own
};

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed);

}  // namespace petname::controller
