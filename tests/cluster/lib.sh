# shellcheck shell=bash
# Daemon helpers shared by up.sh, node-up.sh, down.sh and node-down.sh (source it; the caller
# defines log MESSAGE):
#   start_daemon DIR NAME CMD...   runs CMD in its own session, output DIR/NAME.log, pid DIR/NAME.pid
#   daemon_alive DIR NAME          the process of DIR/NAME.pid runs (a zombie, exited but not yet
#                                  reaped, does not)
#   poll_daemon DIR NAME SECONDS CMD...
#                                  polls CMD every 0.5 s: 0 once it succeeds, 1 when NAME exits
#                                  first, 2 after SECONDS
#   is_ours PID BINARY             PID still runs BINARY (guards against PID reuse)
#   stop_daemon DIR NAME [BINARY]  TERM, PETNAME_STOP_TIMEOUT s (default 10), KILL the process of
#                                  DIR/NAME.pid if it still runs BINARY (default NAME); removes the file

start_daemon() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" </dev/null >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}

daemon_alive() {
  local pid stat
  pid=$(cat "$1/$2.pid" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] &&
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) && [[ ${stat##*) } != [ZX]* ]]
}

poll_daemon() {
  local dir=$1 name=$2 deadline=$((SECONDS + $3))
  shift 3
  # (in a subshell: a trap firing inside a redirected function would keep stderr on /dev/null)
  until ("$@") >/dev/null 2>&1; do
    daemon_alive "$dir" "$name" || return 1
    ((SECONDS < deadline)) || return 2
    sleep 0.5
  done
}

is_ours() {
  local exe
  exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  [[ ${exe##*/} == "$2" || ${exe##*/} == "$2 (deleted)" ]]
}

stop_daemon() {
  local name=$2 bin=${3:-$2} pidfile="$1/$2.pid" pid timeout=${PETNAME_STOP_TIMEOUT:-10}
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ ]] && is_ours "$pid" "$bin"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + timeout))
    while is_ours "$pid" "$bin" && ((SECONDS < deadline)); do sleep 0.2; done
    if is_ours "$pid" "$bin"; then
      log "$name (pid $pid) ignored TERM for ${timeout}s; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 50); do is_ours "$pid" "$bin" || break; sleep 0.1; done
    fi
    log "stopped $name (pid $pid)"
  fi
  rm -f "$pidfile"
}
