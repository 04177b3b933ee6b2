// The rank pods of a PetNameTrainingJob, as the operator renders them. Pure.
//
// For job J with N replicas of P = api::ProcessesPerPod processes each, in namespace NS, pod i of
// J-rank-0 .. J-rank-(N-1) holds ranks i*P .. i*P+P-1 of a world of N*P:
//  - hostname J-rank-i, subdomain J (the headless Service J, desired.h), restartPolicy Never (the
//    operator handles restarts), no ServiceAccount token unless the template asks;
//  - the job's metadata (job_metadata.h) with petname.dev/rank=<i> and
//    petname.dev/restart-generation=<status.restarts>, so pods of an earlier gang restart are never
//    taken for current ones (Diff deletes them); spec.annotations and
//    kubectl.kubernetes.io/default-container=trainer (`kubectl logs` needs no -c beside sidecars);
//  - env MASTER_ADDR=J-rank-0.J.NS.svc, MASTER_PORT, WORLD_SIZE=N*P and, with P == 1, RANK=i and
//    LOCAL_RANK=0, each with its PET_* copy; PET_NNODES=N, PET_NPROC_PER_NODE=P, PET_NODE_RANK=i
//    (as Kubeflow's PyTorchJob sets them); OMP_NUM_THREADS and PETNAME_ADAPTIVE_THREADS when
//    RankThreads derives the threads from resources.cpu; PETNAME_JOB_NAME, PETNAME_NAMESPACE,
//    PETNAME_JOB_UID (the owner the trainer records in its checkpoints), PETNAME_BACKEND,
//    PETNAME_RENDEZVOUS_SECRET from the job's Secret (rendezvous_secret.h),
//    PETNAME_ATTEMPT=<status.restarts> (rank_logs.h); then the spec's env, less any PETNAME_ATTEMPT
//    (the operator's only). With P > 1 there is no RANK or LOCAL_RANK: the container runs
//    `petname train --nproc P`, whose launcher gives each process RANK=i*P+k and LOCAL_RANK=k
//    (k = 0..P-1); args of `petname train` from TrainArgs (train_args.h);
//  - a limit of gpusPerReplica of resources.acceleratorResource (nvidia.com/gpu by default);
//    checkpoint (claim or emptyDir) and dataset volumes (with dataset.url an emptyDir filled by the
//    fetch-data init container: data_fetch.h); volume shm, a memory-backed emptyDir of sizeLimit
//    api::SharedMemory mounted at /dev/shm (NCCL's shared-memory transport); container ports
//    metrics (metrics.port), metrics-k (metrics.port + k, local rank k's metrics) for k = 1..P-1
//    and rendezvous (masterPort); scheduling's schedulerName, priorityClassName, nodeSelector,
//    tolerations and affinity;
//  - the trainer container's securityContext meets the restricted Pod Security Standard
//    (TrainerSecurityContext), so the pods are admitted in a namespace that enforces it when the
//    template's own containers do;
//  - spec.template merged in (pod_template.h): its labels, annotations, sidecars, init
//    containers, volumes, pod-level fields (service account, security context, ...) and the
//    trainer container's extra env, envFrom and volumeMounts (trainer_template.h), never
//    overriding what the operator sets;
//  - with scheduling.gang.enabled, the gang's label or annotation and schedulerName (gang.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/api/job.h"

namespace petname::controller {

std::string PodName(const std::string& job, int rank);

// The trainer container's securityContext: no privilege escalation, every capability dropped,
// a read-only root filesystem (the trainer writes only to its checkpoint volume), non-root (the
// images run as user 65532) and the runtime's default seccomp profile.
nlohmann::json TrainerSecurityContext();

// OK when spec.template sets nothing the operator sets on the rank pods; else InvalidArgument
// listing each conflict (MergePodTemplate's messages).
Status CheckPodTemplate(const api::Job& job);

// Pod <job>-rank-<index> as Desired renders it: the operator's pod with the job's template merged
// in (conflicts left out: CheckPodTemplate fails such a job before any pod is created) and the
// gang's label or annotation.
nlohmann::json RankPod(const api::Job& job, int index);

// The restart generation of a pod (its label; 0 when absent).
int PodGeneration(const nlohmann::json& pod);

}  // namespace petname::controller
