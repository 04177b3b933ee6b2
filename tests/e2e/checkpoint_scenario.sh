# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its kn, WORK, EPOCHS, CTR, create_job, ckpt_dir, latest_epoch,
# save_logs, phase_is, check_resumed_after_restart, final_checkpoint, step, check, ok, not_ok, log):
# scenario 8, a damaged newest checkpoint in real pods. Once rank 0 has written two checkpoints
# its container is killed (SIGKILL through containerd) and what a writer killed in the middle of
# a save leaves is put on the volume: the newest checkpoint's model.safetensors cut to half its
# size and a staging directory with a partial file. The operator restarts the gang; the new rank 0 says it
# skips the damaged checkpoint, resumes from the one before, removes the staging directory, and
# the job Succeeds. The ranks are held (paused) from the second checkpoint until the damage is
# done, so the kill lands mid-training whatever the machine's speed.

scenario_8() {
  local job=truncated t0=$SECONDS
  checks_plan 10
  log "scenario 8: kill rank 0 and damage its newest checkpoint as a killed writer would"
  create_job "$job"
  step "two checkpoints of $job written, its ranks held" 240 held_at "$job" 2 || return 0
  local id at dir staging
  id=$(kn get pod "$job-rank-0" -o jsonpath='{.status.containerStatuses[0].containerID}')
  at=$(latest_epoch "$job")
  if ((at >= EPOCHS)); then
    release "$job"
    stop "rank 0 killed mid-training (its newest checkpoint is the last epoch, $at)"
    return 0
  fi
  if ! "${CTR[@]}" tasks kill -s SIGKILL "${id#containerd://}" >>"$CHECKS_LOG" 2>&1; then
    release "$job"
    stop "killed rank 0's container (${id:-none})"
    return 0
  fi
  dir=$(ckpt_dir "$job")/epoch-$(printf '%06d' "$at")
  staging=$(ckpt_dir "$job")/.staging-epoch-$(printf '%06d' $((at + 1)))-e2e
  truncate -s $(($(stat -c %s "$dir/model.safetensors") / 2)) "$dir/model.safetensors"
  mkdir -p "$staging" && echo partial >"$staging/model.safetensors"
  chown -R --reference="$(ckpt_dir "$job")" "$staging"
  release "$job"
  ok "killed rank 0 (SIGKILL, its ranks held) after epoch $at; its model file cut to half, a staging directory left"
  step "job Succeeded after the gang restart" 300 phase_is "$job" Succeeded || {
    save_logs "$job"
    return 0
  }
  SCENARIO_SECONDS[8-damaged-checkpoint]=$((SECONDS - t0))
  save_logs "$job"
  check "rank 0 says it skips the damaged checkpoint of epoch $at" grep -q \
    "skipping damaged checkpoint: .*epoch-$(printf '%06d' "$at")" "$WORK/logs/$job-rank-0.log"
  check_resumed_after_restart "$job" $((at - 1))
  check "it resumed from the checkpoint before the damaged one (epoch $((at - 1)))" \
    test "${RESUMED:-}" = $((at - 1))
  check "the staging directory was removed" test ! -e "$staging"
  check "final checkpoint on the volume" final_checkpoint "$job"
}
