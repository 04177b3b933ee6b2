// MergeTrainerTemplate: what spec.template may add to the operator's trainer container, through a
// container named "trainer" in spec.template.spec.containers. Pure.
//
// Such an entry may hold only name, env, envFrom and volumeMounts; they are appended to the
// trainer container's own lists (env entries may use valueFrom, envFrom may name ConfigMaps and
// Secrets, volumeMounts may mount the template's volumes), so that NCCL settings, RDMA device
// directories, credentials and the like reach the trainer. The operator's fields win; each of
// these is a conflict, left out with one message:
//  - any other field (image, command, args, resources, ports, securityContext, ...): the
//    operator renders them from the job's fields;
//  - an env name the trainer container already has (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
//    LOCAL_RANK, OMP_NUM_THREADS when derived, spec.env's names, ...) or one reserved for the
//    operator and the trainer's launcher whether or not it is set (api::ReservedEnvName);
//  - a volumeMount whose mountPath is, or lies under, one of the trainer's own mounts
//    (checkpoint.path, dataset.volume.mountPath or the dataset.url directory, /dev/shm) or
//    /dev/termination-log.
// envFrom entries cannot be checked against names (the ConfigMap's keys are read when the pod
// starts); the container's own env wins over envFrom in Kubernetes, so the operator's still do.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace petname::controller {

inline constexpr char kTrainerContainer[] = "trainer";

// Merges the template's trainer entry `extra` into `trainer` (the operator's container);
// appends a message per conflict to `conflicts`.
void MergeTrainerTemplate(const nlohmann::json& extra, nlohmann::json* trainer,
                          std::vector<std::string>* conflicts);

}  // namespace petname::controller
