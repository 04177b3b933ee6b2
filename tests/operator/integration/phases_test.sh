#!/usr/bin/env bash
# Phases and conditions follow the pod phases the test patches (as a kubelet would):
# Pending -> Running -> Succeeded, and Pending -> Failed when a rank fails (restartPolicy Never;
# cleanPodPolicy None keeps the pods, see lifecycle_time_test.sh for the other policies).
source "$(dirname "$0")/lib.sh"

start_operator
create_job ok 2 '  runPolicy: {restartPolicy: Never}'
create_job bad 2 '  runPolicy: {restartPolicy: Never, cleanPodPolicy: None}'
wait_until "ok pods" 30 has_pods ok 2
wait_until "bad pods" 30 has_pods bad 2
wait_until "ok Pending" 20 phase_is ok Pending
wait_until "ok Created" 20 cond_is ok Created True
[[ -n $(job_field ok '{.status.startTime}') ]] || fail "no startTime"

set_phase ok-rank-0 Running
count_is() { [[ $(job_field "$1" "{.status.$2}") == "$3" ]]; }
processed "ok's status.ready 1 (rank 0 Running seen)" 20 count_is ok ready 1
phase_is ok Pending || fail "one of two ranks running must stay Pending"
set_phase ok-rank-1 Running
wait_until "ok Running" 20 phase_is ok Running
wait_until "ok Running condition" 20 cond_is ok Running True
[[ $(job_field ok '{.status.ready}') == 2 ]] || fail "ready count"
[[ $(job_field ok '{.status.observedGeneration}') == 1 ]] || fail "observedGeneration"

set_phase ok-rank-1 Succeeded
processed "ok's status.succeeded 1 (rank 1 Succeeded seen)" 20 count_is ok succeeded 1
phase_is ok Running || fail "one rank done must stay Running"
set_phase ok-rank-0 Succeeded
wait_until "ok Succeeded" 20 phase_is ok Succeeded
cond_is ok Succeeded True || fail "Succeeded condition"
cond_is ok Running False || fail "Running condition must turn False"
[[ -n $(job_field ok '{.status.completionTime}') ]] || fail "no completionTime"
[[ $(job_field ok '{.status.succeeded}') == 2 ]] || fail "succeeded count"

set_phase bad-rank-0 Running
set_phase bad-rank-1 Failed
wait_until "bad Failed" 20 phase_is bad Failed
cond_is bad Failed True || fail "Failed condition"
[[ $(job_field bad '{.status.failed}') == 1 ]] || fail "failed count"
touched bad
[[ $(pod_count bad) == 2 ]] || fail "a failed job's pods are kept, not recreated"
phase_is bad Failed || fail "Failed is final"
stop_operator
log PASS
