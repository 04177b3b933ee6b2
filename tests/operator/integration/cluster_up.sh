#!/usr/bin/env bash
# ctest fixture setup: starts the control plane in DIR and installs the CRD.
set -euo pipefail
DIR=${1:?usage: cluster_up.sh DIR CRD}
CRD=${PETNAME_CRD:-${2:?usage: cluster_up.sh DIR CRD}}
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
"$REPO/tests/cluster/down.sh" "$DIR" --purge
"$REPO/tests/cluster/up.sh" "$DIR" >/dev/null
# shellcheck source=/dev/null
source "$DIR/cluster.env"
"$KUBECTL" apply -f "$CRD" >/dev/null
"$KUBECTL" wait --for condition=established --timeout=60s crd/petnametrainingjobs.petname.dev >/dev/null
