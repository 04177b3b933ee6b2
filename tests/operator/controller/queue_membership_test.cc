// Kueue's configuration as the operator reads it (kueue_config.h) and whether Kueue manages a
// job (queue_membership.h).
#include "operator/kueue/queue_membership.h"

#include <gtest/gtest.h>

#include "operator/kueue/kueue_config.h"

namespace petname::controller {
namespace {

KueueConfig Parse(const std::string& yaml) {
  KueueConfig c;
  const Status s = ParseKueueConfig(yaml, &c);
  EXPECT_TRUE(s.ok()) << s.message();
  return c;
}

constexpr char kHeader[] = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n";

TEST(KueueConfigTest, KueuesDefaults) {
  for (const KueueConfig& c : {DefaultKueueConfig(), Parse(kHeader)}) {
    EXPECT_FALSE(c.manage_jobs_without_queue_name);
    EXPECT_TRUE(c.label_keys_to_copy.empty());
    EXPECT_TRUE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "team-a"}}));
    EXPECT_FALSE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "kube-system"}}));
    EXPECT_FALSE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "kueue-system"}}));
  }
  // Kueue's own namespace, wherever it runs, is never managed by default.
  const KueueConfig c = Parse(std::string(kHeader) + "namespace: queues\n");
  EXPECT_FALSE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "queues"}}));
  EXPECT_TRUE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "kueue-system"}}));
}

TEST(KueueConfigTest, ReadsWhatKueueAppliesToItsOwnJobs) {
  const KueueConfig c = Parse(std::string(kHeader) + R"(
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector:
  matchExpressions:
  - {key: petname.dev/kueue, operator: NotIn, values: [unmanaged]}
integrations:
  frameworks: [batch/job]
  externalFrameworks: [PetNameTrainingJob.v1alpha1.petname.dev]
  labelKeysToCopy: [team, cost-center]
waitForPodsReady: {timeout: 5m}
)");
  EXPECT_TRUE(c.manage_jobs_without_queue_name);
  EXPECT_EQ(c.label_keys_to_copy, (std::vector<std::string>{"team", "cost-center"}));
  EXPECT_TRUE(NamespaceManaged(c, {{"kubernetes.io/metadata.name", "kube-system"}}));
  EXPECT_FALSE(NamespaceManaged(c, {{"petname.dev/kueue", "unmanaged"}}));
}

TEST(KueueConfigTest, WhatIsNotAConfigurationIsRefusedNamingTheField) {
  for (const std::string& bad :
       {std::string("{unclosed"), std::string("kind: Deployment\napiVersion: apps/v1\n"),
        std::string(kHeader) + "manageJobsWithoutQueueName: sometimes\n",
        std::string(kHeader) + "manageJobsWithoutQueueName: \"true\"\n",
        std::string(kHeader) + "managedJobsNamespaceSelector: {matchLabels: [a]}\n",
        std::string(kHeader) + "integrations: {labelKeysToCopy: team}\n",
        std::string(kHeader) + "namespace: [a]\n"}) {
    KueueConfig c;
    const Status s = ParseKueueConfig(bad, &c);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_EQ(s.message().rfind("Kueue configuration: ", 0), 0u) << s.message();
  }
}

MembershipFacts Labelled() {
  MembershipFacts f;
  f.labelled = true;
  return f;
}

TEST(QueueMembershipTest, ALabelledJobIsKueuesInAManagedNamespace) {
  const KueueConfig c = DefaultKueueConfig();
  MembershipFacts f = Labelled();
  EXPECT_TRUE(NeedsNamespace(c, f));
  EXPECT_FALSE(NeedsDefaultQueue(f));
  EXPECT_EQ(DecideMembership(c, f), Membership::kQueued);
  f.namespace_managed = false;
  EXPECT_EQ(DecideMembership(c, f), Membership::kNamespaceNotManaged);
  // Once it has a Workload the namespace is not looked at again.
  f.has_workload = true;
  EXPECT_FALSE(NeedsNamespace(c, f));
  EXPECT_EQ(DecideMembership(c, f), Membership::kQueued);
}

TEST(QueueMembershipTest, ANewJobWithoutALabelGoesToTheDefaultQueue) {
  const KueueConfig c = DefaultKueueConfig();
  MembershipFacts f;
  f.first_look = true;
  EXPECT_TRUE(NeedsDefaultQueue(f));
  EXPECT_FALSE(NeedsNamespace(c, f));
  EXPECT_EQ(DecideMembership(c, f), Membership::kNone);
  f.default_queue = true;
  EXPECT_EQ(DecideMembership(c, f), Membership::kDefaultQueue);
  // Only at its first look, as Kueue's webhook defaults at creation.
  f.first_look = false;
  EXPECT_FALSE(NeedsDefaultQueue(f));
  EXPECT_EQ(DecideMembership(c, f), Membership::kNone);
}

TEST(QueueMembershipTest, ManageJobsWithoutQueueName) {
  KueueConfig c = DefaultKueueConfig();
  c.manage_jobs_without_queue_name = true;
  MembershipFacts f;
  f.first_look = true;
  EXPECT_TRUE(NeedsNamespace(c, f));
  EXPECT_EQ(DecideMembership(c, f), Membership::kQueued);
  f.namespace_managed = false;
  EXPECT_EQ(DecideMembership(c, f), Membership::kNone);
  // Taken once: it stays Kueue's, and its namespace is not read again.
  MembershipFacts taken;
  taken.was_queued = true;
  EXPECT_FALSE(NeedsNamespace(c, taken));
  EXPECT_EQ(DecideMembership(c, taken), Membership::kQueued);
  // Left alone once: it stays out.
  MembershipFacts running;
  EXPECT_FALSE(NeedsNamespace(c, running));
  EXPECT_EQ(DecideMembership(c, running), Membership::kNone);
  // The default queue still comes first.
  f = MembershipFacts{};
  f.first_look = true;
  f.default_queue = true;
  EXPECT_EQ(DecideMembership(c, f), Membership::kDefaultQueue);
}

TEST(QueueMembershipTest, ARemovedLabelWithoutManageJobsWithoutQueueName) {
  const KueueConfig c = DefaultKueueConfig();
  MembershipFacts f;
  f.was_queued = true;
  EXPECT_EQ(DecideMembership(c, f), Membership::kLabelRemoved);
  f.was_queued = false;
  f.has_workload = true;
  EXPECT_EQ(DecideMembership(c, f), Membership::kLabelRemoved);
  EXPECT_EQ(DecideMembership(c, MembershipFacts{}), Membership::kNone);
}

}  // namespace
}  // namespace petname::controller
