# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its k, kn, CTR, WORK, EPOCHS, step, check, ok, not_ok, create_job,
# train_until_checkpoint, latest_epoch, job_field, phase_is, save_logs): scenario 6, the node's
# containerd and then its kubelet restarted mid-training, as a node upgrade or a crashed daemon
# does. The rank containers keep running (containerd's shims outlive containerd, and a restarted
# kubelet adopts the containers it finds), so the job goes on without a gang restart: the same two
# rank pods, status.restarts 0, every epoch trained, and the node and status converge. The ranks
# are held (paused) at their first checkpoint while its epoch is read, and released before the
# restarts (a restarted kubelet does not take paused containers for running ones: it replaced
# them); the restarts follow at once.
# containerd goes first, and the kubelet starts only once containerd answers again: kubelet 1.30
# crashes when containerd is unreachable at its eviction manager's first pass, a few seconds after
# it starts (its instrumented ImageFsInfo drops the error, and container_gc.go dereferences the
# empty answer), which is a node that fails, not the job.

# shellcheck source-path=SCRIPTDIR source=../cluster/lib.sh
source "$ROOT/tests/cluster/lib.sh"

# restart_node_daemon NAME: stops the node daemon NAME (TERM, as an init system does) and starts
# it again with the command line it ran with.
restart_node_daemon() {
  local pid args=()
  pid=$(cat "$PETNAME_NODE_DIR/$1.pid")
  mapfile -d '' -t args <"/proc/$pid/cmdline"
  stop_daemon "$PETNAME_NODE_DIR" "$1" "${args[0]##*/}"
  start_daemon "$PETNAME_NODE_DIR" "$1" "${args[@]}"
}
kubelet_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$PETNAME_KUBELET_HEALTH_PORT/healthz"; }
node_ready() {
  [[ $(k get node "$PETNAME_NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]
}
rank_uids() { kn get pods -l "petname.dev/job-name=$1" -o jsonpath='{.items[*].metadata.uid}'; }

scenario_6() {
  local job=noderestart t0=$SECONDS uids at
  checks_plan 9
  log "scenario 6: restart containerd, then the kubelet, mid-training"
  train_until_checkpoint "$job"
  if ((STOP)); then return 0; fi
  uids=$(rank_uids "$job")
  at=$(latest_epoch "$job")
  if ((at >= EPOCHS)); then
    release "$job"
    stop "restarted the node's daemons mid-training (checkpoint epoch $at of $EPOCHS)"
    return 0
  fi
  release "$job"
  restart_node_daemon containerd
  step "the restarted containerd answers (restarted after epoch $at of $EPOCHS)" 60 "${CTR[@]}" version || return 0
  restart_node_daemon kubelet
  step "the restarted kubelet is healthy" 120 kubelet_healthy || return 0
  step "job Succeeded" 300 phase_is "$job" Succeeded || { save_logs "$job"; return 0; }
  SCENARIO_SECONDS[6-node-daemons]=$((SECONDS - t0))
  save_logs "$job"
  check "the node is Ready again" eventually 120 node_ready
  check "the rank pods are the ones from before the restarts" test "$(rank_uids "$job")" = "$uids"
  check "status.restarts = 0 (no gang restart)" test "$(job_field "$job" '{.status.restarts}')" = 0
  check "status.active = 0 and status.succeeded = 2" \
    test "$(job_field "$job" '{.status.active}/{.status.succeeded}')" = "0/2"
  check "final checkpoint on the volume" final_checkpoint "$job"
}
