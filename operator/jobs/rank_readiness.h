// Whether the rank pods of a job's current attempt have started: the conditions PodsReady and
// PodsScheduled (api/conditions.h), decided from the pods' start blocks (pod_start.h). Pure.
//
//  - PodsReady, on every pass while the ranks start or run: True once every rank pod is Ready or
//    Succeeded; False with the reason and "<pod>: <message>" of what blocks a rank pod (a start
//    error such as ImagePullBackOff first, else Unschedulable, at once), else False, reason
//    PodsStarting. A start error that has lasted runPolicy.startErrorTimeoutSeconds (counted from
//    when the container was due to start; requeued for then) fails the job with the waiting reason
//    as its reason (ImagePullBackOff, CreateContainerConfigError, ...) and a message naming the
//    pod, container and image. Unschedulable never fails the job.
//  - PodsScheduled: a rank Pending with PodScheduled=False/Unschedulable for
//    scheduling.unschedulableAfterSeconds makes it False, reason Unschedulable, with the
//    scheduler's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "operator/api/job.h"
#include "operator/api/pod.h"
#include "operator/jobs/job_outputs.h"
#include "operator/jobs/pod_start.h"

namespace petname::controller {

struct PodsReadyDecision {
  ConditionValue condition;  // PodsReady
  // A start error that lasted startErrorTimeoutSeconds: the job fails with its reason and
  // DescribeStartFailure.
  std::optional<StartBlock> timed_out;
  int64_t requeue_after = 0;  // when the next start error times out; 0: none pending
};
PodsReadyDecision DecidePodsReady(const api::JobSpec& spec,
                                  const std::vector<api::ObservedPod>& current, int64_t now);

struct UnschedulableRanks {
  // "<pod>: <the scheduler's message>; ..." of the ranks unschedulable for long enough ("" none).
  std::string message;
  int64_t requeue_after = 0;  // when the next unschedulable rank is due; 0: none pending
};
UnschedulableRanks FindUnschedulable(const api::JobSpec& spec,
                                     const std::vector<api::ObservedPod>& current, int64_t now);

}  // namespace petname::controller
