#!/usr/bin/env bash
# Builds (once) and caches Kubeflow's training-operator (v1.9 line) for bench/orchestration.sh.
#
#   bench/kubeflow/build.sh            build what is missing, print the cache directory on stdout
#   bench/kubeflow/build.sh --check    exit 0 if the binary and CRD are cached, 1 otherwise
#
# Env: PETNAME_CACHE (default ~/.cache/petname), KUBEFLOW_VERSION (default v1.9.4, the latest v1.9.x
#      tag on proxy.golang.org), GO (default: go on PATH, else /usr/local/go/bin/go),
#      BUILD_JOBS (go build -p, default 1: the build machine's cores are shared).
#
# Produces, outside the repo:
#   $PETNAME_CACHE/kubeflow/$KUBEFLOW_VERSION/training-operator
#       `go install github.com/kubeflow/training-operator/cmd/training-operator.v1@$KUBEFLOW_VERSION`
#       through the Go module proxy (no git). The module's go.mod has no replace directives, so the
#       versioned install builds exactly the released dependency set. GOTOOLCHAIN is left at its default
#       (auto): a local Go older than the module's `go` line fetches golang.org/toolchain from the proxy.
#   $PETNAME_CACHE/kubeflow/$KUBEFLOW_VERSION/kubeflow.org_pytorchjobs.yaml
#       the PyTorchJob CRD, from manifests/base/crds/ of the same module zip.
# Cold build on the 2-core build machine: minutes, not part of CI (docs/contributing/benchmarks.md).
set -euo pipefail

: "${PETNAME_CACHE:=${HOME:-/root}/.cache/petname}"
KUBEFLOW_VERSION=${KUBEFLOW_VERSION:-v1.9.4}
BUILD_JOBS=${BUILD_JOBS:-1}
MODULE=github.com/kubeflow/training-operator
OUT="$PETNAME_CACHE/kubeflow/$KUBEFLOW_VERSION"
BIN="$OUT/training-operator"
CRD="$OUT/kubeflow.org_pytorchjobs.yaml"

log() { printf '[kubeflow/build] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

cached() { [[ -x $BIN && -s $CRD ]]; }
if [[ ${1:-} == --check ]]; then
  cached && exit 0 || exit 1
fi
[[ $# -eq 0 ]] || { log "usage: build.sh [--check]"; exit 2; }

find_go() {
  if [[ -n ${GO:-} ]]; then echo "$GO"; return; fi
  if command -v go >/dev/null 2>&1; then command -v go; return; fi
  [[ -x /usr/local/go/bin/go ]] && { echo /usr/local/go/bin/go; return; }
  die "no Go toolchain (set GO=/path/to/go)"
}

if cached; then
  log "cached: $OUT"
  echo "$OUT"
  exit 0
fi
mkdir -p "$OUT"
exec 9>"$OUT/.build.lock"
flock 9
GO=$(find_go)
export CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false"

if [[ ! -s $CRD ]]; then
  dir=$(cd "$OUT" && "$GO" mod download -json "$MODULE@$KUBEFLOW_VERSION" | jq -r .Dir) ||
    die "go mod download $MODULE@$KUBEFLOW_VERSION failed"
  [[ -f $dir/manifests/base/crds/kubeflow.org_pytorchjobs.yaml ]] || die "no PyTorchJob CRD in $dir/manifests/base/crds"
  install -m 0644 "$dir/manifests/base/crds/kubeflow.org_pytorchjobs.yaml" "$CRD.tmp.$$"
  mv -f "$CRD.tmp.$$" "$CRD"
fi

if [[ ! -x $BIN ]]; then
  tmp="$OUT/.tmp.$$"
  mkdir -p "$tmp"
  log "go install -p $BUILD_JOBS $MODULE/cmd/training-operator.v1@$KUBEFLOW_VERSION ($("$GO" version | awk '{print $3}'))"
  t0=$SECONDS
  GOBIN="$tmp" "$GO" install -p "$BUILD_JOBS" -ldflags="-s -w" "$MODULE/cmd/training-operator.v1@$KUBEFLOW_VERSION" ||
    { rm -rf "$tmp"; die "go install failed"; }
  mv -f "$tmp/training-operator.v1" "$BIN"
  rm -rf "$tmp"
  log "built $BIN in $((SECONDS - t0)) s"
fi
echo "$OUT"
