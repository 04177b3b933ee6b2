#!/usr/bin/env bash
# Scheduling: a rank Pending with PodScheduled=False/Unschedulable surfaces as condition
# PodsScheduled=False, reason Unschedulable, with the scheduler's message; gang scheduling
# without the PodGroup CRD -> condition GangSchedulingUnavailable and no pods; with the
# scheduler-plugins PodGroup CRD installed (a minimal copy, podgroup_crd.yaml) -> a PodGroup owned
# by the job and the pods labelled for coscheduling.
source "$(dirname "$0")/lib.sh"
CRD_FILE="$(dirname "$0")/podgroup_crd.yaml"
remove_crd() { "$KUBECTL" --kubeconfig "$KUBECONFIG" delete -f "$CRD_FILE" --ignore-not-found >/dev/null 2>&1 || true; }
trap 'rc=$?; remove_crd; (exit $rc); cleanup' EXIT
remove_crd

start_operator
create_job stuck 2 '  scheduling: {unschedulableAfterSeconds: 1}'
wait_until "stuck pods" 30 has_pods stuck 2
set_phase stuck-rank-0 Running
msg='0/3 nodes are available: 3 Insufficient nvidia.com/gpu.'
k patch pod stuck-rank-1 --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Pending\",
  \"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",
  \"message\":\"$msg\",\"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null
wait_until "PodsScheduled False" 20 cond_is stuck PodsScheduled False
cond_reason_is stuck PodsScheduled Unschedulable || fail "reason $(cond stuck PodsScheduled reason)"
[[ $(cond stuck PodsScheduled message) == *"$msg"* ]] || fail "scheduler message missing"
wait_until "Unschedulable event" 20 has_event stuck Unschedulable
set_phase stuck-rank-1 Running
wait_until "PodsScheduled True" 20 cond_is stuck PodsScheduled True

# Gang scheduling without the CRD: a clear condition, no pods, no crash loop.
create_job gang 3 '  scheduling: {gang: {enabled: true, minAvailable: 2}}'
wait_until "GangScheduling False" 20 cond_is gang GangScheduling False
cond_reason_is gang GangScheduling GangSchedulingUnavailable || fail "reason $(cond gang GangScheduling reason)"
processed "GangSchedulingUnavailable event" 20 has_event gang GangSchedulingUnavailable
has_pods gang 0 || fail "no pods without their PodGroup"
kill -0 "$OP_PID" || fail "operator exited"

# With the CRD: the PodGroup, then the pods (a change to the job makes it look again at once).
"$KUBECTL" --kubeconfig "$KUBECONFIG" apply -f "$CRD_FILE" >/dev/null
"$KUBECTL" --kubeconfig "$KUBECONFIG" wait --for condition=established --timeout=60s \
  crd/podgroups.scheduling.x-k8s.io >/dev/null
wait_until "podgroups served" 20 k get podgroups.scheduling.x-k8s.io
k annotate pntj gang touched=1 >/dev/null
wait_until "PodGroup gang" 20 k get podgroups.scheduling.x-k8s.io gang
pg=$(k get podgroups.scheduling.x-k8s.io gang -o json)
[[ $(jq .spec.minMember <<<"$pg") == 2 ]] || fail "minMember $(jq .spec.minMember <<<"$pg")"
[[ $(jq -r '.metadata.ownerReferences[0].uid' <<<"$pg") == $(job_field gang '{.metadata.uid}') ]] ||
  fail "PodGroup must be owned by the job"
wait_until "gang pods" 30 has_pods gang 3
pod=$(k get pod gang-rank-2 -o json)
[[ $(jq -r '.metadata.labels["scheduling.x-k8s.io/pod-group"]' <<<"$pod") == gang ]] || fail "pod-group label"
[[ $(jq -r .spec.schedulerName <<<"$pod") == scheduler-plugins-scheduler ]] || fail "schedulerName"
wait_until "GangScheduling True" 20 cond_is gang GangScheduling True
stop_operator
log PASS
