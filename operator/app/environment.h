// What the operator learns from where it runs: the API server to talk to and how to
// authenticate, and the Surroundings its options default from.
#pragma once

#include "common/status.h"
#include "operator/app/options.h"
#include "operator/kube/rest_config.h"
#include "operator/kueue/kueue_config.h"

namespace petname::app {

// --kubeconfig, else $KUBECONFIG, else the in-cluster service account, else ~/.kube/config
// (with --context). Errors are those of reading and parsing it (NotFound: no such file), or
// InvalidArgument when there is nothing to read.
Status LoadRestConfig(const Options& options, kube::RestConfig* out);

// --kueue-config: Kueue's Configuration file, parsed (kueue/kueue_config.h); Kueue's
// defaults without the flag. InvalidArgument naming the file when it cannot be read or parsed.
Status LoadKueueConfig(const Options& options, controller::KueueConfig* out);

// The pod's namespace from the service account (none outside a cluster) and a new identity
// "<hostname>_<uuid>".
Surroundings ReadSurroundings();

}  // namespace petname::app
