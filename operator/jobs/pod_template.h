// MergePodTemplate: lays a job's pod template (spec.template, api::PodTemplate) over a rank pod
// the operator rendered (rank_pod.h), the operator's fields winning. Pure.
//
//  - metadata.labels, metadata.annotations: added, except keys the rendered pod already has
//    (the operator's labels, spec.labels, spec.annotations) and reserved keys (any under
//    petname.dev/, app.kubernetes.io/name, the gang keys scheduling.x-k8s.io/pod-group and
//    scheduling.k8s.io/group-name);
//  - spec.containers: an entry named "trainer" extends the operator's trainer container (env,
//    envFrom and volumeMounts only; its conflicts are trainer_template.h's); the others
//    (sidecars) are appended, as are spec.initContainers, except containers named like one of
//    the pod's (for init containers: trainer, and fetch-data with dataset.url) and sidecars with
//    a containerPort of the pod's (metrics, metrics-<k>, rendezvous: the containers of a pod
//    share its network);
//  - spec.volumes: appended, except names the pod already uses (checkpoints, dataset, shm);
//  - spec.automountServiceAccountToken: set, replacing the operator's default (false: the
//    trainer never calls the API server, so rank pods mount no token unless the template asks);
//  - any other spec field (serviceAccountName, securityContext, imagePullSecrets, nodeSelector,
//    affinity, tolerations, priorityClassName, runtimeClassName, ...): set, except fields the
//    pod already has (restartPolicy, hostname, subdomain, and the spec.scheduling fields set on
//    the job).
// Each exception is a conflict: the template's entry is left out and one message, naming the
// template field, is returned for it. The CRD refuses most conflicts when a job is created
// (CEL rules on spec.template); the operator fails a job whose template still conflicts
// (CheckPodTemplate in rank_pod.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

// Merges `tmpl` into `pod` (a v1 Pod object); returns the conflicts (empty: none).
std::vector<std::string> MergePodTemplate(const api::PodTemplate& tmpl, nlohmann::json* pod);

}  // namespace petname::controller
