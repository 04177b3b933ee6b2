#!/usr/bin/env bash
# status.progress from a real `petname train` process: the trainer runs locally with /metrics on
# 127.0.0.1; the test patches rank 0's pod to Running with podIP 127.0.0.1 (as a kubelet would),
# and the operator's scraper fills status.progress from that endpoint.
source "$(dirname "$0")/lib.sh"
: "${PETNAME_BIN:?path of petname}"
: "${PETNAME_TEST_DATA:?Seattle CSV}"

TRAIN_PORT=$(free_port)
CKPT=$(mktemp -d)
TRAIN_PID=""
stop_trainer() {
  local rc=$?
  if [[ -n $TRAIN_PID ]]; then kill -9 "$TRAIN_PID" 2>/dev/null || true; fi
  rm -rf "$CKPT"
  return "$rc"
}
trap 'stop_trainer; cleanup' EXIT

"$PETNAME_BIN" train --data "$PETNAME_TEST_DATA" --max-names 400 --epochs 500 --batch-size 64 \
  --threads 1 --checkpoint-dir "$CKPT" --metrics-port "$TRAIN_PORT" \
  --metrics-address 127.0.0.1 >"$LOG_DIR/train.log" 2>&1 &
TRAIN_PID=$!

start_operator --progress-interval 1s
create_job pj 1 "  metrics: {port: $TRAIN_PORT}
  training: {epochs: 500}"
wait_until "pod" 30 has_pods pj 1
k patch pod pj-rank-0 --subresource=status --type=merge -p '{"status":{"phase":"Running",
  "podIP":"127.0.0.1","podIPs":[{"ip":"127.0.0.1"}],
  "conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
wait_until "Running" 20 phase_is pj Running

progress() { job_field pj '{.status.progress}'; }
has_progress() {
  local p
  p=$(progress) && [[ -n $p ]] &&
    jq -e '.epoch >= 1 and .epochs == 500 and .trainLoss > 0 and .validationLoss > 0
           and .samplesPerSecond > 0 and (.lastCheckpointTime | length) > 0
           and (.updateTime | length) > 0' <<<"$p" >/dev/null
}
wait_until "status.progress from the trainer's /metrics" 120 has_progress
log "progress: $(progress)"
first=$(job_field pj '{.status.progress.updateTime}')
epoch_grew() { (($(job_field pj '{.status.progress.epoch}') > $(jq .epoch <<<"$1"))); }
snapshot=$(progress)
wait_until "progress keeps moving" 120 epoch_grew "$snapshot"
[[ -n $first ]] || fail "updateTime"

# An unreachable endpoint never blocks reconciles: with the trainer gone, the job still reacts.
kill -9 "$TRAIN_PID"
wait "$TRAIN_PID" 2>/dev/null || true
TRAIN_PID=""
set_phase pj-rank-0 Succeeded
wait_until "Succeeded" 20 phase_is pj Succeeded
(($(job_field pj '{.status.progress.epoch}') >= 1)) || fail "progress kept after completion"
stop_operator
log PASS
