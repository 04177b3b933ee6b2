// What the operator learns from where it runs: the API server to talk to and how to
// authenticate, and the Surroundings its options default from.
#pragma once

#include "common/status.h"
#include "operator/app/options.h"
#include "operator/kube/rest_config.h"

namespace petname::app {

// --kubeconfig, else $KUBECONFIG, else the in-cluster service account, else ~/.kube/config
// (with --context). Errors are those of reading and parsing it (NotFound: no such file), or
// InvalidArgument when there is nothing to read.
Status LoadRestConfig(const Options& options, kube::RestConfig* out);

// The pod's namespace from the service account (none outside a cluster) and a new identity
// "<hostname>_<uuid>".
Surroundings ReadSurroundings();

}  // namespace petname::app
