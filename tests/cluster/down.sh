#!/usr/bin/env bash
# Stops a control plane started by up.sh: by PID file, in reverse start order, TERM then KILL.
#
#   tests/cluster/down.sh DIR [--purge]
#
# Safe to call twice and on a DIR where nothing (or only part) was started. A PID whose process is
# not the expected binary any more (PID reuse) is left alone. --purge also removes DIR afterwards.
# Env: PETNAME_STOP_TIMEOUT seconds to wait after TERM before KILL (default 10).
set -euo pipefail

DIR=${1:?usage: down.sh DIR [--purge]}
PURGE=${2:-}
STOP_TIMEOUT=${PETNAME_STOP_TIMEOUT:-10}
# Reverse order of up.sh; later issues may add kube-scheduler / kubelet with their own pid files.
COMPONENTS=(kubelet kube-scheduler kube-controller-manager kube-apiserver etcd)

log() { printf '[cluster/down] %s\n' "$*" >&2; }

# is_ours PID NAME: the process still runs the binary NAME (guards against PID reuse)
is_ours() {
  local exe
  exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  [[ ${exe##*/} == "$2" || ${exe##*/} == "$2 (deleted)" ]]
}

stop() {
  local name=$1 pidfile="$DIR/$1.pid" pid
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ ]] && is_ours "$pid" "$name"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while is_ours "$pid" "$name" && ((SECONDS < deadline)); do sleep 0.2; done
    if is_ours "$pid" "$name"; then
      log "$name (pid $pid) ignored TERM for ${STOP_TIMEOUT}s; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 50); do is_ours "$pid" "$name" || break; sleep 0.1; done
    fi
    log "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}

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
for c in "${COMPONENTS[@]}"; do stop "$c"; done
if [[ $PURGE == --purge ]]; then
  rm -rf "$DIR"
fi
