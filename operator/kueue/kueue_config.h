// What the operator takes from Kueue's own Configuration (config.kueue.x-k8s.io/v1beta2, the file
// Kueue's manager reads, --kueue-config), so that PetNameTrainingJobs are held to the settings
// that Kueue applies to its built-in job kinds. Kueue applies them in its job webhooks and
// reconcilers, which do not run for an external framework; the operator does it for petname:
//  - manageJobsWithoutQueueName (default false): a job without a queue-name label in a managed
//    namespace is Kueue's too, with a Workload in no queue (it waits until the label is set);
//  - managedJobsNamespaceSelector (default: namespaces other than kube-system and Kueue's own,
//    the Configuration's `namespace`, default kueue-system): a job in another namespace is not
//    Kueue's (Kueue v0.17's ManagedJobsNamespaceSelectorAlwaysRespected, on by default);
//  - integrations.labelKeysToCopy: the job's labels with these keys are copied to its Workload.
// Other fields are Kueue's alone (waitForPodsReady and fair sharing act on Workloads; webhook,
// metrics, ... on Kueue's process) and are not read. Without --kueue-config the operator uses
// Kueue's defaults. Pure: the file's text comes in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "operator/kube/label_selector.h"

namespace petname::controller {

struct KueueConfig {
  bool manage_jobs_without_queue_name = false;
  kube::LabelSelector managed_namespaces;  // Kueue's default unless the file sets one
  std::vector<std::string> label_keys_to_copy;
};

// Kueue's defaults: manageJobsWithoutQueueName false, every namespace but kube-system and
// kueue-system managed, no labels copied.
KueueConfig DefaultKueueConfig();

// Parses a Kueue Configuration (YAML). InvalidArgument naming the field when the text is not YAML,
// not a config.kueue.x-k8s.io Configuration, or a field read has the wrong type.
Status ParseKueueConfig(const std::string& yaml, KueueConfig* out);

// Whether Kueue manages jobs in a namespace with these labels (its name is the label
// kubernetes.io/metadata.name, which the API server sets on every namespace).
bool NamespaceManaged(const KueueConfig& config, const std::map<std::string, std::string>& labels);

}  // namespace petname::controller
