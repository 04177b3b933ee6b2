// Why a rank pod has not started, read from its observed status (pure).
//
// A pod that has not started (phase Pending, or no phase yet) is blocked when
//  - an init container or a container is waiting with a start error (IsStartError): its image
//    cannot be pulled or is invalid (ErrImagePull, ImagePullBackOff, InvalidImageName,
//    ErrImageNeverPull, ImageInspectError, RegistryUnavailable, SignatureValidationFailed) or it
//    cannot be created or run (CreateContainerConfigError, CreateContainerError,
//    RunContainerError, PreStartHookError). These wait for a change to the job or the cluster (the
//    image's name, a Secret, a ConfigMap), so the job fails once one has lasted
//    runPolicy.startErrorTimeoutSeconds (rank_readiness.h). The first such container in status
//    order (init containers first) is the one reported;
//  - else it has PodScheduled=False with reason Unschedulable: reported only, never a failure (an
//    autoscaler or a queue may still place the pod).
// Other waiting reasons (ContainerCreating, PodInitializing, ...) are progress, not blocks.
#pragma once

#include <cstdint>
#include <string>

#include "operator/api/pod.h"

namespace petname::controller {

struct StartBlock {
  int rank = -1;
  std::string pod;
  std::string reason;     // the kubelet's waiting reason, or Unschedulable
  std::string message;    // the kubelet's or the scheduler's message (may be empty)
  std::string container;  // the waiting container ("" for Unschedulable)
  std::string image;      // its image, as its status names it
  bool init = false;      // an init container
  bool start_error = false;
  // When the waiting container was due to start: the latest of the pod's creation, its
  // PodScheduled=True transition and, for a container, its Initialized=True transition (the end
  // of the init containers); `now` when the pod records none of them. For Unschedulable, the
  // PodScheduled=False transition (else `now`).
  int64_t since = 0;
};

// One of the waiting reasons above that block a container for good.
bool IsStartError(const std::string& waiting_reason);

// True (and *out filled) when `pod` is blocked (see above).
bool PodStartBlocked(const api::ObservedPod& pod, int64_t now, StartBlock* out);

// For a condition: "<pod>: <message>", naming the container when it is not the trainer and the
// reason and image when the kubelet gave no message.
std::string DescribeBlock(const StartBlock& block);

// For the Failed condition of a start error that lasted `timeout_seconds`: the pod, the
// container, the reason, the image and the kubelet's message.
std::string DescribeStartFailure(const StartBlock& block, int64_t timeout_seconds);

}  // namespace petname::controller
