#!/usr/bin/env bash
# Stops the node part of a cluster started by node-up.sh and undoes what it changed on the host:
# kubelet, kube-scheduler, kube-proxy (then `kube-proxy --cleanup` of its iptables rules), CoreDNS,
# every container of the node (killed through its cgroup under /petname-node), containerd and its
# shims, the mounts under DIR/node and the pods' network namespaces, the bridge, the cgroups, the
# kubelet's links in /var/log/containers and the kernel tunables the kubelet set.
#
#   tests/cluster/node-down.sh DIR
#
# Called by down.sh (first, before the control plane stops); safe to call twice and on a DIR whose
# node was never (or only partly) started: each step acts only on what DIR/node records.
# Env: PETNAME_STOP_TIMEOUT seconds between TERM and KILL (default 10).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$HERE/env.sh"
DIR=${1:?usage: node-down.sh DIR}
NODE_DIR=$DIR/node
[[ -d $NODE_DIR ]] || exit 0
NODE_DIR=$(cd "$NODE_DIR" && pwd)
SOCK=$NODE_DIR/containerd/containerd.sock
CGROUP_ROOT=petname-node

log() { printf '[cluster/node-down] %s\n' "$*" >&2; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$HERE/lib.sh"

# Containers: every process in the node's cgroups (containers and pause processes, nothing else
# lives there). The network namespaces of the pod sandboxes are noted first (containerd keeps them
# as bind mounts under /var/run/netns).
kill_containers() {
  local netns_list=$NODE_DIR/netns.list
  if [[ -S $SOCK ]] && command -v ctr >/dev/null; then
    local id
    ctr --address "$SOCK" -n k8s.io containers ls -q 2>/dev/null >>"$NODE_DIR/containers.list" || true
    while read -r id; do
      ctr --address "$SOCK" -n k8s.io containers info "$id" </dev/null 2>/dev/null |
        python3 -c 'import json,sys
for ns in json.load(sys.stdin).get("Spec", {}).get("linux", {}).get("namespaces", []):
    if ns.get("type") == "network" and ns.get("path", "").startswith("/var/run/netns/"): print(ns["path"])' \
        2>/dev/null || true
    done <"$NODE_DIR/containers.list" | sort -u >>"$netns_list"
  fi
  local procs round
  for round in $(seq 50); do
    procs=$(find /sys/fs/cgroup/*/"$CGROUP_ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u) || true
    [[ -n $procs ]] || break
    ((round == 1)) && log "killing $(wc -w <<<"$procs") container processes"
    # shellcheck disable=SC2086 # one pid per word
    kill -KILL $procs 2>/dev/null || true
    sleep 0.2
  done
}

# containerd's shims outlive it; they are ours when their command line names our socket. A killed
# shim leaves its socket in containerd 1.6's fixed /run/containerd/s, named by the sha256 of
# "<containerd address>/<namespace>/<id>" (shim.SocketAddress): removed for each of our containers.
stop_shims() {
  local pid id
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $SOCK( |$)" || true); do
    if is_ours "$pid" containerd-shim-runc-v2; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  [[ -f $NODE_DIR/containers.list ]] || return 0
  while read -r id; do
    rm -f "/run/containerd/s/$(printf '%s' "$SOCK/k8s.io/$id" | sha256sum | cut -c1-64)"
  done <"$NODE_DIR/containers.list"
  rm -f "$NODE_DIR/containers.list"
}

unmount_all() {
  local mnt
  # Deepest first; lazily, so a mount still referenced elsewhere cannot block the rest.
  awk -v d="$NODE_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r |
    while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done
  if [[ -f $NODE_DIR/netns.list ]]; then
    while read -r mnt; do
      [[ -n $mnt ]] || continue
      umount -l "$mnt" 2>/dev/null || true
      rm -f "$mnt"
    done <"$NODE_DIR/netns.list"
    rm -f "$NODE_DIR/netns.list"
  fi
}

remove_cgroups() {
  local hierarchy
  for hierarchy in /sys/fs/cgroup/*/; do
    [[ -d $hierarchy$CGROUP_ROOT ]] || continue
    find "$hierarchy$CGROUP_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

# kube-proxy's iptables chains (KUBE-*, IPv4 and IPv6) and the jumps to them. `kube-proxy --cleanup`
# is not used: it stops half way here (no ipset binary for its IPVS part) and leaves KUBE-FIREWALL,
# KUBE-MARK-MASQ and the canary chains behind. No other kube-proxy runs on the machine (node-up.sh
# owns the bridge), so every KUBE-* chain is ours.
remove_kube_chains() {
  local cmd table rule chain words=()
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in nat filter mangle; do
      "$cmd" -w -t "$table" -S 2>/dev/null | grep -E '^-A [A-Z]+ .*-j KUBE-' | grep -vE '^-A KUBE-' |
        while read -r rule; do
          # iptables -S quotes comments the way the shell does: eval splits the rule as it would.
          eval "words=(${rule#-A })"
          "$cmd" -w -t "$table" -D "${words[@]}" 2>/dev/null || true
        done || true
      for chain in $("$cmd" -w -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[A-Z0-9-]*\)$/\1/p'); do
        "$cmd" -w -t "$table" -F "$chain" 2>/dev/null || true
      done
      for chain in $("$cmd" -w -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[A-Z0-9-]*\)$/\1/p'); do
        "$cmd" -w -t "$table" -X "$chain" 2>/dev/null || true
      done
    done
  done
}

stop_daemon "$NODE_DIR" kubelet
stop_daemon "$NODE_DIR" kube-scheduler
stop_daemon "$NODE_DIR" kube-proxy
remove_kube_chains
stop_daemon "$NODE_DIR" coredns
kill_containers
stop_daemon "$NODE_DIR" containerd
stop_shims
# containerd 1.6 keeps shim sockets and FIFOs under fixed paths; gone once empty (no other containerd).
rmdir /run/containerd/s /run/containerd/fifo /run/containerd 2>/dev/null || true
unmount_all
remove_cgroups
# The kubelet links every container log into /var/log/containers (a fixed path).
find /var/log/containers -maxdepth 1 -type l -lname "$NODE_DIR/*" -delete 2>/dev/null || true
if [[ -f $NODE_DIR/bridge ]]; then
  ip link del "$(cat "$NODE_DIR/bridge")" 2>/dev/null || true
  rm -f "$NODE_DIR/bridge"
  [[ $(cat /run/petname-node.dir 2>/dev/null) == "$DIR" ]] && rm -f /run/petname-node.dir
fi
if [[ -f $NODE_DIR/sysctls.saved ]]; then
  while IFS= read -r setting; do sysctl -q -w "$setting" >/dev/null 2>&1 || log "could not restore $setting"; done \
    <"$NODE_DIR/sysctls.saved"
  rm -f "$NODE_DIR/sysctls.saved"
fi
