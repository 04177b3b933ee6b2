// Gang scheduling (spec.scheduling.gang): the PodGroup a gang scheduler needs before it places
// any rank, and what the rank pods carry so that the scheduler finds their group.
//
//  scheduler     PodGroup                              pods
//  coscheduling  scheduling.x-k8s.io/v1alpha1          label scheduling.x-k8s.io/pod-group=<job>,
//                (scheduler-plugins), spec.minMember   schedulerName scheduler-plugins-scheduler
//  volcano       scheduling.volcano.sh/v1beta1,        annotation
//  scheduling.k8s.io/group-name=<job>,
//                spec.minMember                        schedulerName volcano
//
// The PodGroup is named like the job and controlled by it (garbage-collected with it);
// minMember is gang.minAvailable (default replicas; with Kueue at most the admitted count:
// kueue/queue_admission.h ApplyAdmission), and an existing PodGroup follows it (ResizedPodGroup).
// spec.scheduling.schedulerName, when set, wins over the scheduler's default name.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/api/job.h"

namespace petname::controller {

// The PodGroup collection path in `ns` for the job's gang scheduler.
std::string PodGroupsPath(const api::JobSpec& spec, const std::string& ns);

nlohmann::json PodGroup(const api::Job& job);

// `have` (an existing PodGroup) with the minMember of `want` (PodGroup(job)), or std::nullopt
// when they agree.
std::optional<nlohmann::json> ResizedPodGroup(const nlohmann::json& have,
                                              const nlohmann::json& want);

// Adds the gang label/annotation and schedulerName to a rank pod.
void JoinGang(const api::Job& job, nlohmann::json* pod);

}  // namespace petname::controller
