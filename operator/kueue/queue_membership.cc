#include "operator/kueue/queue_membership.h"

namespace petname::controller {

bool NeedsDefaultQueue(const MembershipFacts& facts) {
  return !facts.labelled && facts.first_look && !facts.has_workload;
}

bool NeedsNamespace(const KueueConfig& config, const MembershipFacts& facts) {
  if (facts.has_workload) return false;
  if (facts.labelled) return true;
  return config.manage_jobs_without_queue_name && facts.first_look && !facts.was_queued;
}

Membership DecideMembership(const KueueConfig& config, const MembershipFacts& facts) {
  if (NeedsDefaultQueue(facts) && facts.default_queue) return Membership::kDefaultQueue;
  if (facts.labelled) {
    return facts.has_workload || facts.namespace_managed ? Membership::kQueued
                                                         : Membership::kNamespaceNotManaged;
  }
  const bool taken = facts.has_workload || facts.was_queued;
  if (config.manage_jobs_without_queue_name) {
    return taken || (facts.first_look && facts.namespace_managed) ? Membership::kQueued
                                                                  : Membership::kNone;
  }
  return taken ? Membership::kLabelRemoved : Membership::kNone;
}

}  // namespace petname::controller
