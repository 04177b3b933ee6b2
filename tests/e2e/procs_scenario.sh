# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its kn, CTR, WORK, EPOCHS, step, check, create_job, latest_epoch,
# save_logs, check_resumed_after_restart, ... and prometheus.sh): scenario 5, a job of 2 pods x 2 processes
# (resources.processesPerReplica: 2), and a local rank process killed inside a pod.

# rank_processes POD: "HOST_PID LOCAL_RANK" of each rank process that the pod's
# `petname train --nproc` started: the processes of its container's containerd task with
# LOCAL_RANK in their environment (the launcher has none with several processes per pod)
rank_processes() {
  local id pid local_rank
  id=$(kn get pod "$1" -o jsonpath='{.status.containerStatuses[0].containerID}')
  [[ -n $id ]] || return 1
  for pid in $("${CTR[@]}" tasks ps "${id#containerd://}" | awk 'NR > 1 {print $1}'); do
    local_rank=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^LOCAL_RANK=//p')
    if [[ -n $local_rank ]]; then echo "$pid $local_rank"; fi
  done
}
# two_ranks_each JOB: each of the job's 2 pods runs local ranks 0 and 1
two_ranks_each() {
  local i ranks
  for i in 0 1; do
    ranks=$(rank_processes "$1-rank-$i" | awk '{print $2}' | sort | paste -sd' ')
    echo "$1-rank-$i: local ranks '$ranks'"
    [[ $ranks == "0 1" ]] || return 1
  done
}
# world_size_is JOB EPOCH N: the checkpoint of EPOCH was written by a world of N ranks
world_size_is() {
  grep -q "\"world_size\": *$3\\b" "$(ckpt_dir "$1")/epoch-$(printf '%06d' "$2")/manifest.json"
}
# restart_event_names_ranks JOB: the Restarting event names the failed pod with its 2 ranks
restart_event_names_ranks() {
  kn get events --field-selector "involvedObject.name=$1,reason=Restarting" \
    -o jsonpath='{.items[*].message}' | grep -E "pod $1-rank-(0 \(ranks 0\.\.1\)|1 \(ranks 2\.\.3\)) failed"
}

# ---- scenario 5: 2 pods x 2 processes, one local rank killed mid-training --------------------
scenario_5() {
  local job=procs t0=$SECONDS
  checks_plan 14
  log "scenario 5: 2 pods x 2 processes, a local rank killed mid-training"
  create_job "$job" "  resources: {processesPerReplica: 2}"
  step "rank pods Running" 120 both_running "$job" || return 0
  check "Prometheus targets: 2 pods x 2 local ranks" eventually 30 publish_targets "$job" 4
  # Scraped while the ranks run; the kill below strikes them held (paused) at a checkpoint.
  check "Prometheus on the host scraped the 4 local ranks through pod IPs" eventually 30 scraped_all "$job" 4
  step "first checkpoint of $job written (every rank trained epoch 1), its ranks held" 180 \
    held_at "$job" 1 || return 0
  local at victim
  at=$(latest_epoch "$job")
  check "status.ranks = 4 (2 pods x 2 processes)" test "$(job_field "$job" '{.status.ranks}')" = 4
  check "each pod runs local ranks 0 and 1 (petname train --nproc 2)" two_ranks_each "$job"
  check "the 4 ranks rendezvoused (world size 4 in the checkpoint of epoch $at)" world_size_is "$job" "$at" 4
  victim=$(rank_processes "$job-rank-1" | awk '$2 == 1 {print $1}' || true)
  strike "$job" "$at" "killed local rank 1 of $job-rank-1 (rank 3, SIGKILL to host pid ${victim:-none})" \
    kill -KILL "${victim:-none}" || return 0
  step "job Succeeded after the gang restart" 300 phase_is "$job" Succeeded || { save_logs "$job"; return 0; }
  SCENARIO_SECONDS[5-processes]=$((SECONDS - t0))
  save_logs "$job"
  check_resumed_after_restart "$job" "$at"
  check "the Restarting event names the failed pod and its ranks" eventually 30 restart_event_names_ranks "$job"
  check "final checkpoint, written by a world of 4 ranks" world_size_is "$job" "$EPOCHS" 4
}
