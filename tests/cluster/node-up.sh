#!/usr/bin/env bash
# Starts a single-node Kubernetes cluster on this machine: the control plane of up.sh (bound to
# a bridge address, so pods reach it) plus kube-scheduler, containerd (CRI, runc), a kubelet
# (cgroupfs driver), kube-proxy (iptables mode) and CoreDNS (host process on the bridge address,
# the kubelet's clusterDNS), with the CNI bridge + host-local + loopback plugins of Debian.
#
#   tests/cluster/node-up.sh DIR [IMAGE...]
#
# IMAGEs (e.g. localhost/petname-trainer:dev) are copied from podman's storage (containers-storage)
# into the node's containerd, under the same names; pods use them with imagePullPolicy Never or
# IfNotPresent (nothing is ever pulled: there is no registry). A pause image (catatonit -P, from
# scratch) is built with buildah and imported too.
# Stop with down.sh DIR (it stops the node too, also when node-up.sh failed half way).
#
# Needs root, Debian's containerd, runc, iptables, conntrack, containernetworking-plugins (scripts/setup),
# and build.sh --node (run here when something is missing). One node cluster per machine (it owns
# the bridge $PETNAME_NODE_BRIDGE and the cgroup /petname-node).
#
# Env (optional): PETNAME_NODE_POD_CIDR (default 10.244.0.0/24; its .1 is the bridge, apiserver,
#   kubelet and DNS address), PETNAME_NODE_BRIDGE (default petname-br0), PETNAME_NODE_NAME (default
#   petname-node), PETNAME_CLUSTER_TIMEOUT (seconds per readiness step, default 120),
#   PETNAME_CLUSTER_OWNER_PID (as for up.sh: a watchdog runs down.sh DIR when that process is gone).
# Exit status: 0 ready; 3 a node daemon (containerd, CoreDNS, kube-scheduler, kubelet, kube-proxy)
#   exited on this machine: it cannot run here (its last log lines are printed; the stderr line
#   "[cluster/node-up] NODE-UNAVAILABLE: NAME ...: <its last error line>" says why); 1 any other
#   failure, among them a daemon that runs but does not become ready within the timeout.
# Appends to DIR/cluster.env: PETNAME_NODE_NAME, PETNAME_NODE_ADDRESS, PETNAME_POD_CIDR,
#   PETNAME_CONTAINERD_SOCK, PETNAME_NODE_DIR. Writes DIR/node/ (configs, state, logs, pid files).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$HERE/env.sh"

DIR=${1:?usage: node-up.sh DIR [IMAGE...]}
shift
IMAGES=("$@")
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
NODE_DIR=$DIR/node
TIMEOUT=${PETNAME_CLUSTER_TIMEOUT:-120}
POD_CIDR=${PETNAME_NODE_POD_CIDR:-10.244.0.0/24}
BRIDGE=${PETNAME_NODE_BRIDGE:-petname-br0}
NODE=${PETNAME_NODE_NAME:-petname-node}
PREFIX=${POD_CIDR#*/}
NET=${POD_CIDR%/*}
GW=${NET%.*}.$((${NET##*.} + 1))
SOCK=$NODE_DIR/containerd/containerd.sock
CGROUP_ROOT=/petname-node
PAUSE_IMAGE=localhost/petname-pause:3.9
# Kernel tunables the kubelet sets (protectKernelDefaults: false); node-down.sh puts them back.
KUBELET_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes)

log() { printf '[cluster/node-up] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$HERE/../support/ports.sh"

# ---- preconditions ---------------------------------------------------------------------------
[[ $(id -u) -eq 0 ]] || die "needs root (network bridge, cgroups, containerd)"
for cmd in containerd ctr runc iptables conntrack ip skopeo buildah python3; do
  command -v "$cmd" >/dev/null || die "$cmd missing: run scripts/setup"
done
for plugin in bridge host-local loopback; do
  [[ -x /usr/lib/cni/$plugin ]] || die "/usr/lib/cni/$plugin missing: run scripts/setup"
done
[[ $POD_CIDR =~ ^([0-9]+\.){3}[0-9]+/([0-9]|1[0-9]|2[0-8])$ ]] || die "PETNAME_NODE_POD_CIDR=$POD_CIDR is not an IPv4 CIDR of /28 or more"
if ip link show "$BRIDGE" >/dev/null 2>&1; then
  die "bridge $BRIDGE exists: another node cluster runs ($(cat /run/petname-node.dir 2>/dev/null || echo 'owner unknown')); stop it with tests/cluster/down.sh DIR"
fi
"$HERE/build.sh" --node --check || "$HERE/build.sh" --node >&2

# ---- failure handling ------------------------------------------------------------------------
SUCCESS=0
UNAVAILABLE=""
on_exit() {
  local rc=$?
  ((SUCCESS)) && return 0
  log "start failed (rc=$rc); stopping what was started"
  "$HERE/down.sh" "$DIR" >&2 || true
  if [[ -n $UNAVAILABLE ]]; then
    log "NODE-UNAVAILABLE: $UNAVAILABLE"
    exit 3
  fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

start() { start_daemon "$NODE_DIR" "$@"; }

# node_daemon_failed NAME WHAT: NAME could not run here; prints its log tail, exits 3 (on_exit).
node_daemon_failed() {
  log "---- last 30 lines of $NODE_DIR/$1.log ----"
  tail -n 30 "$NODE_DIR/$1.log" >&2 || true
  UNAVAILABLE="$1 $2: $(grep -E -i 'error|fail|fatal' "$NODE_DIR/$1.log" | tail -n 1 | cut -c1-300)"
  exit 3
}

# wait_for NAME DESCRIPTION CMD...: polls CMD until it succeeds. NAME dying means it cannot run
# here (exit 3); NAME running but not ready in time is a failure of the node (exit 1).
wait_for() {
  local name=$1 what=$2 rc=0
  shift 2
  poll_daemon "$NODE_DIR" "$name" "$TIMEOUT" "$@" || rc=$?
  ((rc != 1)) || node_daemon_failed "$name" "exited while waiting for $what"
  if ((rc == 2)); then
    log "---- last 30 lines of $NODE_DIR/$name.log ----"
    tail -n 30 "$NODE_DIR/$name.log" >&2 || true
    die "$name: timed out after ${TIMEOUT}s waiting for $what"
  fi
}

# Ports of the node's daemons: scheduler, kubelet (on the bridge address), kubelet health,
# kube-proxy health and metrics (checked free by bind on loopback, below the ephemeral range).
PORTS=$(free_ports 5)
SCHED_PORT=$PORTS KUBELET_PORT=$((PORTS + 1)) KUBELET_HEALTH=$((PORTS + 2))
PROXY_HEALTH=$((PORTS + 3)) PROXY_METRICS=$((PORTS + 4))

# ---- network: the bridge first (the apiserver binds its address) ------------------------------
mkdir -p "$NODE_DIR"
for s in "${KUBELET_SYSCTLS[@]}"; do echo "$s=$(sysctl -n "$s")"; done >"$NODE_DIR/sysctls.saved"
ip link add "$BRIDGE" type bridge
echo "$BRIDGE" >"$NODE_DIR/bridge"
echo "$DIR" >/run/petname-node.dir
ip addr add "$GW/$PREFIX" dev "$BRIDGE"
ip link set "$BRIDGE" up
log "bridge $BRIDGE $GW/$PREFIX"

# ---- control plane ---------------------------------------------------------------------------
PETNAME_APISERVER_ADDRESS=$GW PETNAME_NODE_NAME=$NODE "$HERE/up.sh" "$DIR" >/dev/null
# shellcheck source=/dev/null
source "$DIR/cluster.env"
PKI=$DIR/pki
k() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" "$@"; }

# kubeconfig FILE USER CERT KEY (same cluster entry as up.sh's)
kubeconfig() {
  (
    umask 077
    k config view --raw --minify -o json | python3 -c '
import json, sys
cfg = json.load(sys.stdin)
user, cert, key = sys.argv[1:4]
cfg["users"] = [{"name": user, "user": {"client-certificate": cert, "client-key": key}}]
ctx = cfg["contexts"][0]
ctx["context"]["user"] = user
ctx["name"] = user + "@petname-test"
cfg["current-context"] = ctx["name"]
print(json.dumps(cfg))' "$2" "$3" "$4" >"$1"
  )
}
# The kubelet authenticates as system:node:NAME (group system:nodes: Node authorizer); kube-proxy
# and CoreDNS use the admin certificate (a test cluster; they only watch Services/EndpointSlices).
kubeconfig "$NODE_DIR/kubelet.kubeconfig" "system:node:$NODE" "$PKI/node.crt" "$PKI/node.key"

# ---- containerd (own config, root, state and socket under NODE_DIR) --------------------------
mkdir -p "$NODE_DIR/containerd" "$NODE_DIR/cni/net.d" "$NODE_DIR/cni/ipam"
cat >"$NODE_DIR/containerd/config.toml" <<EOF
version = 2
root = "$NODE_DIR/containerd/root"
state = "$NODE_DIR/containerd/state"
plugin_dir = ""
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$NODE_DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  disable_apparmor = true
  # The build machines' root lacks CAP_SYS_RESOURCE: a negative oom_score_adj (the CRI asks -998 for
  # sandboxes) makes runc fail ("can't get final child's PID from pipe"); clamp it to containerd's own.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$NODE_DIR/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$NODE_DIR/cni/net.d"
    max_conf_num = 1
EOF
cat >"$NODE_DIR/cni/net.d/10-petname.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "petname-node",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": "$NODE_DIR/cni/ipam",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$GW"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    }
  ]
}
EOF
log "containerd ($SOCK)"
start containerd containerd --config "$NODE_DIR/containerd/config.toml"
CTR=(ctr --address "$SOCK" --namespace k8s.io)
wait_for containerd "its socket" "${CTR[@]}" version

# ---- images: pause (catatonit -P from scratch) and the requested ones, from podman's storage ---
CACHE=$PETNAME_CACHE/images
# shellcheck source-path=SCRIPTDIR source=../../docker/containers-env.sh
source "$ROOT/docker/containers-env.sh"
ARCHIVES=$CACHE/node-archives
mkdir -p "$ARCHIVES"
if ! podman image exists "$PAUSE_IMAGE"; then
  ctr_id=$(buildah from scratch)
  buildah copy --chmod 0755 "$ctr_id" /usr/bin/catatonit /pause >/dev/null
  buildah config --entrypoint '["/pause", "-P"]' --user 65535:65535 "$ctr_id"
  buildah commit -q --rm "$ctr_id" "$PAUSE_IMAGE" >/dev/null
fi
import_image() { # REF: containers-storage REF -> docker-archive (cached by image id) -> containerd
  local ref=$1 id archive
  id=$(podman image inspect --format '{{.Id}}' "$ref") || die "image $ref is not in podman's storage (docker/build.sh builds it)"
  archive=$ARCHIVES/${id:0:16}-$(echo "$ref" | tr '/:' '__').tar
  if [[ ! -f $archive ]]; then
    skopeo copy -q "containers-storage:$ref" "docker-archive:$archive.tmp:$ref" >>"$NODE_DIR/images.log" 2>&1 ||
      die "skopeo copy of $ref failed (see $NODE_DIR/images.log)"
    mv -f "$archive.tmp" "$archive"
  fi
  "${CTR[@]}" images import "$archive" >/dev/null || die "ctr images import $archive failed"
  log "image $ref imported (${id:0:12})"
}
for ref in "$PAUSE_IMAGE" "${IMAGES[@]}"; do import_image "$ref"; done
# Each archive is as big as its image and every build of an image makes a new one: drop old ones.
find "$ARCHIVES" -name '*.tar' -mtime +2 -delete

# ---- CoreDNS: cluster.local on the bridge address --------------------------------------------
cat >"$NODE_DIR/Corefile" <<EOF
cluster.local:53 in-addr.arpa:53 {
  bind $GW
  errors
  kubernetes cluster.local in-addr.arpa {
    kubeconfig $DIR/kubeconfig
    ttl 5
  }
}
EOF
log "CoreDNS on $GW:53"
start coredns "$COREDNS" -conf "$NODE_DIR/Corefile"
dns_ok() { # kubernetes.default.svc.cluster.local resolves to 10.96.0.1 through CoreDNS
  python3 - "$GW" <<'PY'
import socket, struct, sys
q = b"".join(bytes([len(p)]) + p.encode() for p in "kubernetes.default.svc.cluster.local".split(".")) + b"\0"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
s.sendto(struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0) + q + struct.pack(">HH", 1, 1), (sys.argv[1], 53))
r = s.recv(512)
sys.exit(0 if struct.unpack(">H", r[6:8])[0] > 0 and r.endswith(bytes([10, 96, 0, 1])) else 1)
PY
}
wait_for coredns "an answer for kubernetes.default.svc.cluster.local" dns_ok

# ---- kube-scheduler --------------------------------------------------------------------------
log "kube-scheduler (health on https://127.0.0.1:$SCHED_PORT/healthz)"
start kube-scheduler "$PETNAME_K8S_BIN/kube-scheduler" --kubeconfig "$DIR/scheduler.kubeconfig" \
  --authentication-kubeconfig "$DIR/scheduler.kubeconfig" --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --leader-elect=false --profiling=false
wait_for kube-scheduler "/healthz" curl -fsSk --max-time 2 "https://127.0.0.1:$SCHED_PORT/healthz"

# ---- kubelet (cgroupfs under /petname-node, state under NODE_DIR) ----------------------------
for hierarchy in /sys/fs/cgroup/*/; do
  [[ -f ${hierarchy}cgroup.procs ]] || continue
  mkdir -p "$hierarchy${CGROUP_ROOT#/}"
done
if [[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]]; then
  cp /sys/fs/cgroup/cpuset/cpuset.cpus "/sys/fs/cgroup/cpuset$CGROUP_ROOT/cpuset.cpus"
  cp /sys/fs/cgroup/cpuset/cpuset.mems "/sys/fs/cgroup/cpuset$CGROUP_ROOT/cpuset.mems"
fi
mkdir -p "$NODE_DIR/kubelet" "$NODE_DIR/pod-logs"
cat >"$NODE_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $GW
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTH
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$PKI/ca.crt"}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
failSwapOn: false
containerRuntimeEndpoint: unix://$SOCK
clusterDNS: [$GW]
clusterDomain: cluster.local
podLogsDir: $NODE_DIR/pod-logs
makeIPTablesUtilChains: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
maxPods: 30
serializeImagePulls: false
EOF
log "kubelet on $GW:$KUBELET_PORT (node $NODE)"
start kubelet "$PETNAME_K8S_BIN/kubelet" --config "$NODE_DIR/kubelet.yaml" \
  --kubeconfig "$NODE_DIR/kubelet.kubeconfig" --root-dir "$NODE_DIR/kubelet" \
  --hostname-override "$NODE" --node-ip "$GW" --v 1
wait_for kubelet "/healthz" curl -fsS --max-time 2 "http://127.0.0.1:$KUBELET_HEALTH/healthz"
# ---- kube-proxy (iptables mode; leaves the host's conntrack and localnet sysctls alone) --------
# After the kubelet: kube-proxy waits (with a growing back-off) for its Node object to exist.
cat >"$NODE_DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: "$DIR/kubeconfig"}
hostnameOverride: $NODE
mode: iptables
clusterCIDR: $POD_CIDR
bindAddress: $GW
healthzBindAddress: 127.0.0.1:$PROXY_HEALTH
metricsBindAddress: 127.0.0.1:$PROXY_METRICS
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
log "kube-proxy"
start kube-proxy "$PETNAME_K8S_BIN/kube-proxy" --config "$NODE_DIR/kube-proxy.yaml"
proxy_ok() { [[ $(iptables -w -t nat -S KUBE-SERVICES) == *'default/kubernetes:https'* ]]; }
wait_for kube-proxy "its rules for default/kubernetes" proxy_ok

node_ready() {
  [[ $(k get node "$NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]
}
wait_for kubelet "node $NODE Ready" node_ready

cat >>"$DIR/cluster.env" <<EOF
export PETNAME_NODE_NAME='$NODE'
export PETNAME_NODE_ADDRESS='$GW'
export PETNAME_POD_CIDR='$POD_CIDR'
export PETNAME_CONTAINERD_SOCK='$SOCK'
export PETNAME_NODE_DIR='$NODE_DIR'
export PETNAME_KUBELET_HEALTH_PORT='$KUBELET_HEALTH'
EOF
SUCCESS=1
log "node $NODE ready in ${SECONDS}s (source $DIR/cluster.env)"
echo "$DIR/kubeconfig"
