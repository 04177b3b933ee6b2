#!/usr/bin/env bash
# ctest fixture setup: starts the control plane in DIR and installs the CRDs (CRD, and the
# sweep CRD beside it: crds/petname.dev_petnametrainingsweeps.yaml).
set -euo pipefail
DIR=${1:?usage: cluster_up.sh DIR CRD}
CRD=${PETNAME_CRD:-${2:?usage: cluster_up.sh DIR CRD}}
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
"$REPO/tests/cluster/down.sh" "$DIR" --purge
"$REPO/tests/cluster/up.sh" "$DIR" >/dev/null
# shellcheck source=/dev/null
source "$DIR/cluster.env"
"$KUBECTL" apply -f "$CRD" -f "$(dirname "$CRD")/petname.dev_petnametrainingsweeps.yaml" >/dev/null
"$KUBECTL" wait --for condition=established --timeout=60s crd/petnametrainingjobs.petname.dev \
  crd/petnametrainingsweeps.petname.dev >/dev/null
