#!/usr/bin/env bash
# Restarting the kube-apiserver while the operator runs: the operator reconnects and converges.
# Its watches break off with the apiserver, so the informers relist after a backoff (a watch
# from the resourceVersions it held would expire, 410, and relist too).
source "$(dirname "$0")/lib.sh"

restart_apiserver() {
  local pidfile="$PETNAME_CLUSTER_DIR/kube-apiserver.pid" pid
  pid=$(cat "$pidfile")
  [[ $(readlink "/proc/$pid/exe") == */kube-apiserver* ]] || fail "no kube-apiserver at pid $pid"
  local -a argv
  mapfile -d '' argv <"/proc/$pid/cmdline"
  # KILL, as in a crash: a TERM makes the apiserver drain open watches for 60 s first.
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  log "kube-apiserver stopped"
  sleep 2  # the operator sees connection errors meanwhile
  setsid "${argv[@]}" </dev/null >>"$PETNAME_CLUSTER_DIR/kube-apiserver.log" 2>&1 &
  echo $! >"$pidfile"
  wait_until "apiserver /readyz" 120 curl -fsS --max-time 2 --cacert "$PETNAME_CA_FILE" \
    --cert "$PETNAME_ADMIN_CERT" --key "$PETNAME_ADMIN_KEY" "$PETNAME_APISERVER_URL/readyz"
  log "kube-apiserver restarted"
}

start_operator
create_job rex 2
wait_until "2 pods" 30 has_pods rex 2
lists_before=$(metric petname_operator_informer_lists_total)

restart_apiserver
# Converges on changes made after the restart.
k delete pod rex-rank-0 --wait=false >/dev/null
create_job after 2
wait_until "pods of the job created after the restart" 60 has_pods after 2
wait_until "rex-rank-0 recreated" 60 has_pods rex 2
set_phase after-rank-0 Running
set_phase after-rank-1 Running
wait_until "after Running" 30 phase_is after Running
relisted() { (($(metric petname_operator_informer_lists_total) > lists_before)); }
wait_until "a relist after the watch expired" 60 relisted
grep -qE "relisting after a backoff|expired \(410\); relisting" "$LOG_DIR/operator.log" ||
  fail "no relist in the log"
stop_operator
log PASS
