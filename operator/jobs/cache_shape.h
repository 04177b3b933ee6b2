// What the operator's informers keep (controller.h, sweeps/sweep_controller.h): only objects the
// operator made, and of each only the fields it reads, so that what the users of a namespace can
// make it hold is bounded per job and per object, whatever they label or annotate. Pure.
//
// Objects of a job (pods, Services, NetworkPolicies, Kueue Workloads, selected by the API server
// on the labels app.kubernetes.io/name=petname and petname.dev/job-name): kept only when their
// controller ownerReference is a petname.dev PetNameTrainingJob whose name is their
// petname.dev/job-name label, and, for the kinds the operator names itself, their name is one it
// gives that job: the Service and the NetworkPolicy J, the pods J-rank-<i> with i below
// kMaxReplicas. Anyone who may create such objects can label them and point their owner
// references at a job of their namespace, but no job then holds more than kMaxReplicas pods, one
// Service and one NetworkPolicy in the cache. Of what is kept:
//  - pods: metadata's name, namespace, uid, resourceVersion, creationTimestamp,
//    deletionTimestamp, the operator's labels (app.kubernetes.io/name, petname.dev/job-name,
//    petname.dev/rank, petname.dev/restart-generation) and the controller ownerReference; status's
//    phase, reason, message, podIP, conditions and the containers' and init containers' name,
//    image, state and lastState: everything api::PodFromJson reads;
//  - Services and NetworkPolicies: that metadata, with the operator's labels;
//  - Workloads: all of it (the operator writes them back whole, kueue/queue_sync.h).
//
// PetNameTrainingJobs and PetNameTrainingSweeps lose metadata.annotations but the
// provreq.kueue.x-k8s.io/* ones, which a job's Workload copies (the operator reads no other;
// `kubectl apply` keeps a whole copy of the object there). A trial job in the
// sweep controller's cache is kept only when its controller ownerReference is the
// PetNameTrainingSweep its petname.dev/sweep-name label names, and only with what the sweep reads
// of it (metadata as for pods, with the labels petname.dev/sweep-name and petname.dev/trial-index,
// spec.runPolicy.suspend, status). A job or sweep whose JSON is still larger than
// kMaxCachedObjectBytes is cached as its identity alone (apiVersion, kind, metadata's name,
// namespace, uid, resourceVersion, generation), its status when that is at most half as large,
// and its size (TooLargeBytes), and is not acted on: the reconcilers report it (reconciler.h,
// sweeps/sweep_reconciler.h).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace petname::controller {

// The CRD's maximum of spec.replicas, and so of the rank pods of one job.
inline constexpr int kMaxReplicas = 1024;

// The largest job or sweep the operator caches as it is: the API server's own limit on the
// annotations of one object. The CRDs do not bound spec.template's size, which reaches the pods
// only when they are created.
inline constexpr int64_t kMaxCachedObjectBytes = int64_t{256} * 1024;

enum class JobObject { kPod, kService, kNetworkPolicy, kWorkload };

// Whether to cache `obj`, an object of `kind` labelled as a job's; shapes it when so.
bool ShapeJobObject(JobObject kind, nlohmann::json* obj);

// PetNameTrainingJobs (the job controller's cache) and PetNameTrainingSweeps: always cached.
bool ShapeJob(nlohmann::json* job);
bool ShapeSweep(nlohmann::json* sweep);

// Trial jobs in the sweep controller's cache.
bool ShapeTrialJob(nlohmann::json* job);

// The size in bytes of a job or sweep that was too large to cache; 0 for any other object.
int64_t TooLargeBytes(const nlohmann::json& obj);

// "<what> is N bytes of JSON without its annotations, more than the M the operator caches; ..."
std::string TooLargeMessage(const std::string& what, int64_t bytes);

}  // namespace petname::controller
