#!/usr/bin/env bash
# Stops a control plane started by up.sh: by PID file, in reverse start order, TERM then KILL;
# first Kueue (kueue-up.sh), then the node of node-up.sh when DIR has one (node-down.sh).
#
#   tests/cluster/down.sh DIR [--purge]
#
# Safe to call twice and on a DIR where nothing (or only part) was started. A PID whose process is
# not the expected binary any more (PID reuse) is left alone. --purge also removes DIR afterwards.
# Env: PETNAME_STOP_TIMEOUT seconds to wait after TERM before KILL (default 10).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=${1:?usage: down.sh DIR [--purge]}
PURGE=${2:-}
# Reverse order of up.sh. The node of node-up.sh (DIR/node: kubelet, kube-scheduler, kube-proxy,
# CoreDNS, containerd) is stopped first, by node-down.sh.
COMPONENTS=(kube-controller-manager kube-apiserver etcd)

log() { printf '[cluster/down] %s\n' "$*" >&2; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$HERE/lib.sh"

# The optional watchdog of up.sh (PETNAME_CLUSTER_OWNER_PID) goes first so it cannot race us.
stop_watchdog() {
  local pidfile="$DIR/watchdog.pid" pid
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  rm -f "$pidfile"
  [[ $pid =~ ^[0-9]+$ && $pid != "$$" ]] || return 0
  if [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *petname-cluster-watchdog* ]]; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
}

[[ -d $DIR ]] || exit 0
stop_watchdog
stop_daemon "$DIR" kueue
"$HERE/node-down.sh" "$DIR"
for c in "${COMPONENTS[@]}"; do stop_daemon "$DIR" "$c"; done
if [[ $PURGE == --purge ]]; then
  rm -rf "$DIR"
fi
