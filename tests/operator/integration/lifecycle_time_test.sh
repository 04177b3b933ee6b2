#!/usr/bin/env bash
# Time and cleanup: activeDeadlineSeconds -> Failed/DeadlineExceeded with the pods deleted;
# ttlSecondsAfterFinished -> the job deleted; suspend -> pods deleted, Suspended, and back ->
# pods recreated, Resumed; cleanPodPolicy Running/All/None on completion; Events for each.
source "$(dirname "$0")/lib.sh"

start_operator
create_job deadline 2
create_job ttl 1 '  runPolicy: {ttlSecondsAfterFinished: 1}'
create_job pause 2
for policy in Running All None; do
  create_job "clean-${policy,,}" 2 "  runPolicy: {restartPolicy: Never, cleanPodPolicy: $policy}"
done

# Deadline: running ranks are deleted once it passes. It is set once the ranks run: set at
# creation, it could pass before a slow operator had made the pods.
wait_until "deadline pods" 30 has_pods deadline 2
run_all deadline 2
wait_until "deadline Running" 20 phase_is deadline Running
k patch pntj deadline --type=merge -p '{"spec":{"runPolicy":{"activeDeadlineSeconds":1}}}' >/dev/null
wait_until "deadline Failed" 20 phase_is deadline Failed
cond_reason_is deadline Failed DeadlineExceeded || fail "reason $(cond deadline Failed reason)"
wait_until "deadline pods deleted" 20 has_pods deadline 0
wait_until "DeadlineExceeded event" 20 has_event deadline DeadlineExceeded

# TTL: the finished job is deleted (and with it its pods, by the garbage collector).
wait_until "ttl pod" 30 has_pods ttl 1
set_phase ttl-rank-0 Succeeded
wait_until "ttl job deleted" 30 bash -c "! '$KUBECTL' --kubeconfig '$KUBECONFIG' -n '$NS' get pntj ttl"

# Suspend and resume.
wait_until "pause pods" 30 has_pods pause 2
run_all pause 2
wait_until "pause Running" 20 phase_is pause Running
k patch pntj pause --type=merge -p '{"spec":{"runPolicy":{"suspend":true}}}' >/dev/null
wait_until "pause Suspended" 20 phase_is pause Suspended
cond_is pause Suspended True || fail "Suspended condition"
wait_until "pause pods deleted" 20 has_pods pause 0
k patch pntj pause --type=merge -p '{"spec":{"runPolicy":{"suspend":false}}}' >/dev/null
wait_until "pause pods back" 20 has_pods pause 2
wait_until "pause Pending" 20 phase_is pause Pending
cond_is pause Suspended False || fail "Suspended must turn False"
cond_reason_is pause Suspended Resumed || fail "reason $(cond pause Suspended reason)"
args=$(k get pod pause-rank-0 -o jsonpath='{.spec.containers[0].args}')
[[ $args == *'"--resume"'* ]] || fail "resumed ranks must --resume"
wait_until "Suspended event" 20 has_event pause Suspended
wait_until "Resumed event" 20 has_event pause Resumed
has_event pause Created || fail "no Created event"

# cleanPodPolicy when a job fails with rank 0 running and rank 1 failed.
for policy in running all none; do
  wait_until "clean-$policy pods" 30 has_pods "clean-$policy" 2
  set_phase "clean-$policy-rank-0" Running
  fail_pod "clean-$policy-rank-1" 1 Error
  wait_until "clean-$policy Failed" 20 phase_is "clean-$policy" Failed
done
wait_until "Running: the running rank deleted" 20 has_pods clean-running 1
k get pod clean-running-rank-1 >/dev/null || fail "Running: the failed rank must stay"
wait_until "All: every pod deleted" 20 has_pods clean-all 0
touched clean-none
has_pods clean-none 2 || fail "None: both pods must stay"

# Success after a run: Succeeded event.
set_phase pause-rank-0 Succeeded
set_phase pause-rank-1 Succeeded
wait_until "pause Succeeded" 20 phase_is pause Succeeded
wait_until "Succeeded event" 20 has_event pause Succeeded
stop_operator
log PASS
