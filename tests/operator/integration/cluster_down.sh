#!/usr/bin/env bash
# ctest fixture cleanup: stops the control plane started by cluster_up.sh (logs are kept).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
"$REPO/tests/cluster/down.sh" "${1:?usage: cluster_down.sh DIR}"
