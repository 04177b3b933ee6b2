#!/usr/bin/env bash
# Failure policy: each restart policy x exit code / reason row (exit 73, an unusable checkpoint
# directory, fails under OnFailure too), the gang restart (all pods deleted, recreated with the
# next restart-generation label and --resume, status.restarts,
# condition Restarting naming rank and exit code, Event), the restart backoff, and
# backoffLimit -> Failed/BackoffLimitExceeded with the last failure's message; the backoff
# survives an operator restart.
source "$(dirname "$0")/lib.sh"

start_operator
fast='  runPolicy: {restartPolicy: %s, backoffLimit: 1, restartBackoffSeconds: 0}'
# name            policy     how rank 1 fails                 expected
rows=(
  "onf-exit1      OnFailure  exit:1:Error                     restart"
  "never-oom      Never      exit:137:OOMKilled               fail"
  "ec-exit1       ExitCode   exit:1:Error                     fail"
  "ec-exit127     ExitCode   exit:127:Error                   fail"
  "ec-oom         ExitCode   exit:137:OOMKilled               restart"
  "ec-sigterm     ExitCode   exit:143:Error                   restart"
  "ec-evicted     ExitCode   evict                            restart"
  "onf-exit73     OnFailure  exit:73:Error                    fail"
)
for row in "${rows[@]}"; do
  read -r name policy _ _ <<<"$row"
  # shellcheck disable=SC2059
  create_job "$name" 2 "$(printf "$fast" "$policy")"
done
for row in "${rows[@]}"; do
  read -r name _ how _ <<<"$row"
  wait_until "$name pods" 30 has_pods "$name" 2
  run_all "$name" 2
  wait_until "$name Running" 20 phase_is "$name" Running
  generation_is "$name-rank-1" 0 || fail "$name: first pods must carry restart-generation 0"
  if [[ $how == evict ]]; then
    evict_pod "$name-rank-1"
  else
    IFS=: read -r _ code reason <<<"$how"
    fail_pod "$name-rank-1" "$code" "$reason"
  fi
done

for row in "${rows[@]}"; do
  read -r name policy how want <<<"$row"
  if [[ $want == fail ]]; then
    wait_until "$name Failed" 20 phase_is "$name" Failed
    reason=RankFailed
    [[ $how == exit:73:* ]] && reason=CheckpointDirUnusable # permanent under every policy
    cond_reason_is "$name" Failed "$reason" || fail "$name: Failed reason $(cond "$name" Failed reason)"
    [[ $(cond "$name" Failed message) == *"rank 1"* ]] || fail "$name: message must name rank 1"
    [[ $(job_field "$name" '{.status.restarts}') == 0 ]] || fail "$name: must not restart"
    wait_until "$name event" 20 has_event "$name" "$reason"
  else
    wait_until "$name restarted" 20 restarts_is "$name" 1
    msg=$(cond "$name" Restarting message)
    [[ $msg == *"rank 1"* ]] || fail "$name: Restarting message '$msg' must name rank 1"
    if [[ $how == exit:* ]]; then
      code=$(cut -d: -f2 <<<"$how")
      [[ $msg == *"exit code $code"* ]] || fail "$name: Restarting message '$msg' must give exit code $code"
    else
      cond_reason_is "$name" Restarting Evicted || fail "$name: Restarting reason must be Evicted"
    fi
    wait_until "$name generation-1 pods" 30 generation_is "$name-rank-0" 1
    wait_until "$name generation-1 pods" 30 generation_is "$name-rank-1" 1
    has_pods "$name" 2 || fail "$name: expected exactly 2 pods after the restart"
    args=$(k get pod "$name-rank-1" -o jsonpath='{.spec.containers[0].args}')
    [[ $args == *'"--resume"'* && $args == *'"--checkpoint-dir"'* ]] || fail "$name: recreated ranks must --resume"
    [[ -n $(job_field "$name" '{.status.lastRestartTime}') ]] || fail "$name: lastRestartTime"
    wait_until "$name Restarting event" 20 has_event "$name" Restarting
  fi
done

# A second failure with backoffLimit 1 fails the job with the last failure's message.
run_all onf-exit1 2
wait_until "onf-exit1 Running again" 20 phase_is onf-exit1 Running
cond_reason_is onf-exit1 Restarting Restarted || fail "Restarting must turn False/Restarted once all ranks run"
fail_pod onf-exit1-rank-0 3 Error
wait_until "onf-exit1 Failed" 20 phase_is onf-exit1 Failed
cond_reason_is onf-exit1 Failed BackoffLimitExceeded || fail "reason $(cond onf-exit1 Failed reason)"
[[ $(cond onf-exit1 Failed message) == *"rank 0"*"exit code 3"* ]] || fail "last failure missing: $(cond onf-exit1 Failed message)"
wait_until "BackoffLimitExceeded event" 20 has_event onf-exit1 BackoffLimitExceeded

# Restart backoff: with restartBackoffSeconds 300 the ranks are not recreated yet.
create_job slow 1 '  runPolicy: {restartBackoffSeconds: 300}'
wait_until "slow pod" 30 has_pods slow 1
fail_pod slow-rank-0 1 Error
wait_until "slow Restarting" 20 phase_is slow Restarting
processed "slow pods deleted" 20 has_pods slow 0
has_pods slow 0 || fail "ranks recreated before the restart backoff passed"
phase_is slow Restarting || fail "slow must stay Restarting during its backoff"
# The backoff is kept in status: a restarted operator neither recreates early nor counts twice.
stop_operator
start_operator
wait_until "the restarted operator caught up" 30 caught_up
has_pods slow 0 || fail "a restarted operator recreated the ranks before the backoff passed"
restarts_is slow 1 || fail "a restarted operator must not count the restart again"
stop_operator
log PASS
