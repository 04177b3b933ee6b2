# shellcheck shell=bash
# Shared by the operator benchmarks (bench/operator_create.sh, bench/operator_footprint.sh):
# a private control plane with the CRD installed, API helpers, and one operator at a time.
# Source it after setting REPO, CRD and NAME (the log prefix); it starts the cluster in a
# temporary directory $DIR and stops everything on exit. Needs `set -euo pipefail`.

DIR=$(mktemp -d "/tmp/petname-bench-$NAME.XXXXXX")
OP_PID=""
cleanup() {
  if [[ -n $OP_PID ]]; then kill -TERM "$OP_PID" 2>/dev/null && wait "$OP_PID" 2>/dev/null; fi
  "$REPO/tests/cluster/down.sh" "$DIR/cluster" --purge >&2 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
log() { printf '[%s] %s\n' "$NAME" "$*" >&2; }

"$REPO/tests/cluster/up.sh" "$DIR/cluster" >/dev/null
# shellcheck source=/dev/null
source "$DIR/cluster/cluster.env"
"$KUBECTL" apply -f "$CRD" >/dev/null
"$KUBECTL" wait --for condition=established --timeout=60s crd/petnametrainingjobs.petname.dev >/dev/null

api() { curl -fsS --cacert "$PETNAME_CA_FILE" --cert "$PETNAME_ADMIN_CERT" --key "$PETNAME_ADMIN_KEY" "$PETNAME_APISERVER_URL$1"; }
# pods NS: how many pods exist in NS (one cheap request: limit=1 + remainingItemCount).
pods() { api "/api/v1/namespaces/$1/pods?limit=1" | jq '(.items | length) + (.metadata.remainingItemCount // 0)'; }

start_operator() { # BINARY NS FLAGS...
  local binary=$1 ns=$2
  shift 2
  "$binary" --kubeconfig "$KUBECONFIG" --namespace "$ns" --health-probe-bind-address 0 \
    --metrics-bind-address 0 --log-level warn "$@" 2>>"$DIR/operator.log" &
  OP_PID=$!
  sleep 2  # caches synced
}
stop_operator() { kill -TERM "$OP_PID"; wait "$OP_PID" || true; OP_PID=""; }
