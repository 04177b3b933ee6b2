// Desired: the objects that should exist for a PetNameTrainingJob, computed by a pure function
// of the job and what was observed (no server, no clock), and Diff: what to create and delete to
// get there. Everything desired carries the job's controller ownerReference and the labels
// app.kubernetes.io/name=petname, petname.dev/job-name=<job>, petname.dev/rank=<i> (pods).
//
// For job J with N replicas of P = api::ProcessesPerPod processes each, in namespace NS:
//  - headless Service J (clusterIP None, publishNotReadyAddresses) selecting J's pods;
//  - pods J-rank-0 .. J-rank-(N-1) (pod i holds ranks i*P .. i*P+P-1 of a world of N*P),
//    hostname J-rank-i, subdomain J, restartPolicy Never (the operator handles restarts);
//    env MASTER_ADDR=J-rank-0.J.NS.svc, MASTER_PORT, WORLD_SIZE=N*P and, with P == 1, RANK=i and
//    LOCAL_RANK=0, each with its PET_* copy; PET_NNODES=N, PET_NPROC_PER_NODE=P, PET_NODE_RANK=i
//    (as Kubeflow's PyTorchJob sets them); OMP_NUM_THREADS and PETNAME_ADAPTIVE_THREADS when
//    RankThreads derives the threads from resources.cpu; PETNAME_JOB_NAME, PETNAME_NAMESPACE,
//    PETNAME_JOB_UID (the owner the trainer records in its checkpoints), PETNAME_BACKEND,
//    PETNAME_RENDEZVOUS_SECRET from the job's Secret (RendezvousSecret),
//    PETNAME_ATTEMPT=<status.restarts> (rank_logs.h); then the spec's env, less any PETNAME_ATTEMPT
//    (the operator's only); annotation kubectl.kubernetes.io/default-container=trainer (`kubectl
//    logs` needs no -c beside sidecars). With P > 1 there is no RANK or LOCAL_RANK: the container
//    runs `petname train --nproc P`, whose launcher gives each process RANK=i*P+k and LOCAL_RANK=k
//    (k = 0..P-1); args of `petname train` from TrainArgs; a limit of gpusPerReplica of
//    resources.acceleratorResource (nvidia.com/gpu by default); checkpoint (claim or emptyDir) and
//    dataset volumes (with dataset.url an emptyDir filled by the fetch-data init container:
//    data_fetch.h); volume shm, a memory-backed emptyDir of sizeLimit api::SharedMemory mounted at
//    /dev/shm (NCCL's shared-memory transport); container ports metrics (metrics.port), metrics-k
//    (metrics.port + k, local rank k's metrics) for k = 1..P-1 and rendezvous (masterPort); label
//    petname.dev/restart-generation=<status.restarts>, so pods of an earlier gang restart are never
//    taken for current ones (Diff deletes them); the trainer container's securityContext meets the
//    restricted Pod Security Standard (TrainerSecurityContext), so the pods are admitted in a
//    namespace that enforces it when the template's own containers do;
//  - spec.template merged into every pod (pod_template.h): its labels, annotations, sidecars,
//    init containers, volumes, pod-level fields (service account, security context, ...) and
//    the trainer container's extra env, envFrom and volumeMounts (trainer_template.h), never
//    overriding what the operator sets;
//  - with scheduling.gang.enabled, the PodGroup (gang.h; minMember counts pods) and the pods'
//    gang labels;
//  - with NetworkPolicyOptions.enabled (the operator's --network-policy, on by default), the
//    NetworkPolicy J (network_policy.h).
// Which pods exist is decided by ComputeStatus (lifecycle.h) as a PodAction.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"
#include "operator/jobs/network_policy.h"

namespace petname::controller {

using Json = nlohmann::json;

// The job's pods, services and network policies as the informers see them (selected by
// petname.dev/job-name; may include objects other owners made with the same labels).
struct Observed {
  std::vector<Json> pods;
  std::vector<Json> services;
  std::vector<Json> pod_groups;  // the job's PodGroup when it exists
  std::vector<Json> network_policies;
};

// The trainer container's securityContext: no privilege escalation, every capability dropped,
// a read-only root filesystem (the trainer writes only to its checkpoint volume), non-root (the
// images run as user 65532) and the runtime's default seccomp profile.
Json TrainerSecurityContext();

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
  std::vector<Json> network_policies;
  std::vector<Json> pod_groups;  // created before the pods
  std::vector<Json> pods;
  PodAction action = PodAction::kRun;
};

std::string PodName(const std::string& job, int rank);

// Intra-op threads of each rank, as the operator passes them: training.threads when set
// (`--threads count`, a fixed count); else, with resources.cpu set and OMP_NUM_THREADS not in
// the spec's env, max(1, floor(cpu cores) / P) (from_cpu: OMP_NUM_THREADS=count with
// PETNAME_ADAPTIVE_THREADS=1, an upper bound the trainer lowers while its threads wait for a
// CPU, common/adaptive_threads.h); else count 0: nothing is passed and the trainer derives
// them from its CPU quota and affinity.
struct Threads {
  int count = 0;
  bool from_cpu = false;
};
Threads RankThreads(const api::JobSpec& spec);

// The arguments after `petname train` for one pod: `--nproc P` first when P > 1, then data,
// hyper-parameters, checkpoint and metrics flags, `--resume`, `--threads` (RankThreads) and
// `--device cuda` with GPUs; `--max-data-bytes` with dataset.maxBytes.
// The checkpoint directory is api::CheckpointDir (the job's name under checkpoint.path unless
// checkpoint.subPath says otherwise).
std::vector<std::string> TrainArgs(const api::Job& job);

// The Secret J-rendezvous holding the ranks' rendezvous secret (`value`, key "secret"),
// controlled by the job, so it is deleted with it. Its ranks read it as
// PETNAME_RENDEZVOUS_SECRET and sign what they exchange at rendezvous with it
// (trainer/distributed/peer_check.h). The reconciler creates it, with a fresh random value,
// before the job's pods; one that exists while the job has no pods is replaced (reconciler.h).
Json RendezvousSecret(const api::Job& job, const std::string& value);
std::string RendezvousSecretName(const std::string& job);

// OK when spec.template sets nothing the operator sets on the rank pods; else InvalidArgument
// listing each conflict (MergePodTemplate's messages).
Status CheckPodTemplate(const api::Job& job);

// Pod <job>-rank-<index> as Desired renders it: the operator's pod with the job's template merged
// in (conflicts left out: CheckPodTemplate fails such a job before any pod is created) and the
// gang's label or annotation.
Json RankPod(const api::Job& job, int index);

// The restart generation of a pod (its label; 0 when absent).
int PodGeneration(const Json& pod);

// Pure: depends only on the job (spec, status.restarts), `action` and `policy`.
DesiredState Desired(const api::Job& job, PodAction action = PodAction::kRun,
                     const NetworkPolicyOptions& policy = {});

struct Actions {
  std::vector<Json> create;  // services, network policies, pod groups, then pods in rank order
  std::vector<Json> update;  // the job's PodGroup with a new minMember (ResizedPodGroup, gang.h)
  std::vector<std::string> delete_pods;  // controlled pods not desired (or of another generation)
  std::vector<std::string> conflicts;    // desired names held by objects this job does not own
};

Actions Diff(const api::Job& job, const DesiredState& desired, const Observed& observed);

}  // namespace petname::controller
