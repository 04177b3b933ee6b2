#!/usr/bin/env bash
# Self-contained CRD test: starts a control plane (tests/cluster/up.sh) in a temp dir, runs
# tests/crds/run.sh against it and always stops it (tests/cluster/down.sh), also on failure or Ctrl-C.
#
#   tests/crds/test.sh
#
# Env: the ports/timeouts of up.sh (random free ports by default), PETNAME_CACHE, K8S_VERSION,
#      PETNAME_KEEP_CLUSTER_DIR=1 keeps the temp dir (logs, pki) even on success.
# The cluster dir (with *.log) is kept when something failed. Last line: `N passed, N failed`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/petname-crd-test.XXXXXX")
RC=1
SUMMARY="0 passed, 1 failed"

finish() {
  "$ROOT/tests/cluster/down.sh" "$DIR" 2>/dev/null || true
  if ((RC == 0)) && [[ -z ${PETNAME_KEEP_CLUSTER_DIR:-} ]]; then
    rm -rf "$DIR"
  else
    echo "cluster dir kept for inspection: $DIR" >&2
  fi
  echo "$SUMMARY"
  exit "$RC"
}
trap finish EXIT
export PETNAME_CLUSTER_OWNER_PID=$$
trap 'exit 130' INT TERM

if ! "$ROOT/tests/cluster/up.sh" "$DIR" >/dev/null; then
  echo "not ok - control plane did not start (see $DIR/*.log)"
  exit 1
fi
set +e
"$ROOT/tests/crds/run.sh" "$DIR/kubeconfig" | tee "$DIR/run.out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
RC=${PIPESTATUS[0]}
set -e
SUMMARY=$(tail -n 1 "$DIR/run.out")
[[ $SUMMARY =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || { SUMMARY="0 passed, 1 failed"; RC=1; }
