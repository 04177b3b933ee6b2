// Whether Kueue manages a PetNameTrainingJob, decided as Kueue v0.17's jobframework decides for
// its built-in kinds (its job webhook at creation, its reconciler after), with the settings of
// Kueue's Configuration (kueue_config.h). Pure; the facts it needs are read by QueueSync, each only
// when NeedsDefaultQueue or NeedsNamespace says so.
//
// In this order:
//  - a job without the queue-name label, looked at for the first time (no status, no pod), in a
//    namespace with a LocalQueue named "default": kDefaultQueue, the job is given the label
//    kueue.x-k8s.io/queue-name: default, as Kueue's webhook defaults its own jobs at creation
//    (LocalQueueDefaulting, locked on in v0.17); the next pass takes it as labelled;
//  - a labelled job: Kueue's (kQueued) once it has a Workload, or when its namespace is managed
//    (managedJobsNamespaceSelector); otherwise kNamespaceNotManaged: it waits, as Kueue ignores
//    jobs in such namespaces (ManagedJobsNamespaceSelectorAlwaysRespected, on by default) while its
//    webhook keeps a labelled job suspended;
//  - no label, with manageJobsWithoutQueueName: Kueue's, in no queue (kQueued), when the operator
//    already took it (a Workload or condition QuotaReserved) or, at its first look, when its
//    namespace is managed; its Workload has queueName "" and is never admitted until the job is
//    labelled, as for Kueue's own jobs; otherwise kNone;
//  - no label otherwise: a job that was in a queue (a Workload or condition QuotaReserved) had its
//    label removed (kLabelRemoved, queue_admission.h); any other is not Kueue's (kNone).
// A job's namespace is looked at only until it has a Workload (then it is Kueue's) and, for jobs
// without a label, at its first look (as Kueue's webhook suspends a job at creation), so a
// namespace relabelled later does not take a running job out of Kueue or into it.
#pragma once

#include "operator/kueue/kueue_config.h"

namespace petname::controller {

enum class Membership { kNone, kDefaultQueue, kQueued, kNamespaceNotManaged, kLabelRemoved };

struct MembershipFacts {
  bool labelled = false;          // the job has the label kueue.x-k8s.io/queue-name
  bool first_look = false;        // the operator has not written the job's status yet
  bool was_queued = false;        // condition QuotaReserved
  bool has_workload = false;      // the job controls a Workload
  bool default_queue = false;     // its namespace has a LocalQueue "default" (NeedsDefaultQueue)
  bool namespace_managed = true;  // NamespaceManaged (NeedsNamespace)
};

bool NeedsDefaultQueue(const MembershipFacts& facts);
bool NeedsNamespace(const KueueConfig& config, const MembershipFacts& facts);
Membership DecideMembership(const KueueConfig& config, const MembershipFacts& facts);

}  // namespace petname::controller
