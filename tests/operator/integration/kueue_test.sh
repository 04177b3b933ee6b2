#!/usr/bin/env bash
# Kueue admission of PetNameTrainingJobs on the real API server with a real Kueue (v0.17, built
# and started by tests/cluster/kueue-up.sh) and the real petname-operator --kueue. No kubelet:
# the test moves rank pods through phases. Checks: before Kueue is installed, a queued job waits
# (QuotaReserved False, KueueUnavailable) with no pod; a queued job creates its Workload and no pod;
# the admission's flavor (nodeLabels, tolerations) reaches the pods; two LocalQueues sharing one
# ClusterQueue with room for one job: the second waits (no pod) until the first finishes (its
# Workload Finished frees the quota); a higher-priority job preempts a running one: its pods go,
# it waits as Suspended/Preempted with restarts 0, its reservation is released, and it comes back
# at the same restart generation; partial admission runs a 4-replica gang job with minReplicas 2
# at 2 (its PodGroup's minMember 2);
# the Workload carries Kueue's finalizer kueue.x-k8s.io/resource-in-use until its job is done with
# it; a running job's Workload deleted by hand stays Terminating while a pod of the job is left
# (a test finalizer keeps one), nothing else is admitted onto its quota and no second Workload is
# made, then the job gets a new one; deleting a queued or a running job leaves no Workload and no
# pod; a missing WorkloadPriorityClass gives no Workload (PriorityClassNotFound, a Warning event)
# until the class exists. A rank that fails after the ranks were ready gives the Workload's
# PodsReady WaitForRecovery and a restart, then Recovered (with Kueue's waitForPodsReady timing it:
# operator_kueue_conformance); a job suspended by spec.runPolicy.suspend that is preempted
# releases its reservation; an evicted job
# whose pod stays Terminating (bound to a node that never confirms) releases it once the pod's
# grace period is over. Edits: a queued job's resources update its Workload in place (its pods
# then request them); a running job's replicas replace it (DeletedWorkload) and the job is
# admitted again at the new size, resuming at the same restart generation; a queue-name typo fixed
# moves the Workload to the right queue and a new priority class reaches a running job's
# Workload; removing the queue label leaves a pending job held by its Workload
# (QueueLabelRemoved, no pod) and an admitted job's Workload Finished, and a job that has no
# Workload yet waiting (QueueLabelRemoved, no Workload, no pod).
# An AdmissionCheck (its controller played by the test) set Ready with podSetUpdates: its labels,
# annotations, nodeSelector and tolerations reach the rank pod. A job whose nodeSelector clashes
# with the flavor's nodeLabels is not admitted (Kueue assigns no flavor; the job says why); one
# whose admission check's podSetUpdates clash with its nodeSelector: the Workload
# Finished/FailedToStart (its quota freed), the job Failed/FailedToStart, no pod.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../../support/kueue.sh
source "$ROOT/tests/support/kueue.sh"

ka() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }

# Before Kueue is installed (this test installs it on the fixture's cluster): --kueue refuses
# nothing, and a job in a queue waits without pods, saying why.
if ! ka get --raw /apis/kueue.x-k8s.io/v1beta2 >/dev/null 2>&1; then
  log "--kueue without Kueue: a job in a queue waits (KueueUnavailable), no pod"
  start_operator --kueue
  wait_until "the operator's error line about the missing Kueue API" 20 grep -q "is not served" "$LOG_DIR/operator.log"
  k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: early, labels: {kueue.x-k8s.io/queue-name: team-a}}
spec: {replicas: 1, image: petname:test, dataset: {path: /data/pets.csv}}
YAML
  wait_until "early: QuotaReserved False/KueueUnavailable" 30 cond_reason_is early QuotaReserved KueueUnavailable
  has_pods early 0 || fail "a job in a queue got pods without Kueue"
  stop_operator
  k delete pntj early >/dev/null
else
  log "Kueue's API is already served on this cluster: the KueueUnavailable part is skipped"
fi

"$ROOT/tests/cluster/kueue-up.sh" "$PETNAME_CLUSTER_DIR" >/dev/null
RF="rf-$NS" CQ="cq-$NS"
# The operator is stopped first at exit: the Workloads' finalizers go by hand, so that the
# namespace can go.
drop_finalizers() {
  local o
  for o in $(k get workloads,pods -o name); do
    k patch "$o" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null || true
  done
}
AT_EXIT+=("ka delete clusterqueue $CQ --wait=false" "ka delete resourceflavor $RF --wait=false"
  "ka delete workloadpriorityclass low-$NS high-$NS missing-$NS" drop_finalizers)
ka apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: $RF}
spec:
  nodeLabels: {petname.dev/pool: blue}
  tolerations: [{key: petname.dev/pool, operator: Equal, value: blue, effect: NoSchedule}]
---
$(kueue_cluster_queue "$CQ" "$RF" 2 LowerPriority)
---
$(kueue_priority_class "low-$NS" 10)
---
$(kueue_priority_class "high-$NS" 1000)
---
$(kueue_local_queue "$NS" team-a "$CQ")
---
$(kueue_local_queue "$NS" team-b "$CQ")
YAML

start_operator --kueue

# queued_job NAME QUEUE PRIORITY REPLICAS [EXTRA_SPEC_YAML]: a job of REPLICAS x 1 CPU in QUEUE.
queued_job() {
  JOB_LABELS="{kueue.x-k8s.io/queue-name: $2, kueue.x-k8s.io/priority-class: $3-$NS}" \
    create_job "$1" "$4" "  resources: {cpu: \"1\"}
${5:-}"
}
workloads_of() { k get workloads -l "petname.dev/job-name=$1" -o json; }
workload_count() { workloads_of "$1" | jq '.items | length'; }
has_workloads() { [[ $(workload_count "$1") == "$2" ]]; }
wl_cond() { workloads_of "$1" | jq -r --arg t "$2" '.items[0].status.conditions[]? | select(.type == $t) | .status + "/" + .reason'; }
wl_cond_is() { [[ $(wl_cond "$1" "$2") == "$3" ]]; }
admitted() { cond_is "$1" Admitted True; }
# pending_events JOB: how many times Kueue's scheduler found no room for JOB's Workload (its
# Pending events, each with its count).
pending_events() {
  k get events -o json | jq -r --arg n "$(workloads_of "$1" | jq -r '.items[0].metadata.name')" \
    '[.items[] | select(.involvedObject.name == $n and .reason == "Pending") | .count // 1] | add // 0'
}
finish_job() { # JOB N: every rank Succeeded
  local r
  for ((r = 0; r < $2; r++)); do set_phase "$1-rank-$r" Succeeded; done
}

log "a job in queue team-a: its Workload is created, admitted, and only then the rank pods"
queued_job first team-a low 2 "  runPolicy: {restartBackoffSeconds: 1}"
wait_until "first's Workload" 30 has_workloads first 1
[[ $(workloads_of first | jq -r '.items[0].spec.podSets[0].count') == 2 ]] || fail "pod set count"
[[ $(workloads_of first | jq -r '.items[0].spec.priority') == 10 ]] || fail "priority from the WorkloadPriorityClass"
[[ $(workloads_of first | jq -r '.items[0].metadata.ownerReferences[0].kind') == PetNameTrainingJob ]] || fail "owner"
in_use() { [[ $(workloads_of "$1" | jq -r '.items[0].metadata.finalizers // [] | index("kueue.x-k8s.io/resource-in-use")') != null ]]; }
in_use first || fail "no finalizer kueue.x-k8s.io/resource-in-use on the Workload"
wait_until "first admitted" 30 admitted first
wait_until "first's 2 pods" 30 has_pods first 2
pod=$(k get pod first-rank-0 -o json)
[[ $(jq -r '.spec.nodeSelector["petname.dev/pool"]' <<<"$pod") == blue ]] || fail "flavor nodeLabels not on the pod"
[[ $(jq -r '.spec.tolerations[] | select(.key == "petname.dev/pool") | .value' <<<"$pod") == blue ]] || fail "flavor toleration not on the pod"
cond_is first QuotaReserved True || fail "QuotaReserved"
run_all first 2
wait_until "first Running" 30 phase_is first Running
wait_until "Workload PodsReady" 30 wl_cond_is first PodsReady True/Started

log "a rank fails after the ranks were ready: WaitForRecovery, a restart, Recovered, no eviction"
fail_pod first-rank-1 1 Error
wait_until "Workload WaitForRecovery" 30 wl_cond_is first PodsReady False/WaitForRecovery
restarted() { has_pods first 2 && generation_is first-rank-0 1; }
wait_until "first's ranks of restart 1" 60 restarted
run_all first 2
wait_until "Workload Recovered" 30 wl_cond_is first PodsReady True/Recovered
[[ $(wl_cond first Evicted) != True/* ]] || fail "a rank restart evicted first: $(wl_cond first Evicted)"
admitted first || fail "first lost its admission at a rank restart"
restarts_is first 1 || fail "restarts $(job_field first '{.status.restarts}'), not 1"

log "a job in queue team-b (same ClusterQueue, no quota left) waits without pods"
queued_job second team-b low 2
wait_until "second's Workload" 30 has_workloads second 1
processed "second waiting" 30 cond_reason_is second Suspended WaitingForAdmission
has_pods second 0 || fail "a job that was never admitted has pods"
phase_is second Suspended || fail "second is not Suspended while queued"
[[ $(job_field second '{.status.reason}') == WaitingForAdmission ]] || fail "status.reason of a queued job"
k get pntj second | grep -q False || fail "kubectl get pntj shows no ADMITTED False"

log "a queued job's resources edited: its Workload is updated (the same object), still no pod"
wl_uid() { workloads_of "$1" | jq -r '.items[0].metadata.uid'; }
trainer_cpu() { jq -r '.spec.containers[] | select(.name == "trainer") | .resources.requests.cpu'; }
wl_cpu() { workloads_of "$1" | jq '.items[0].spec.podSets[0].template' | trainer_cpu; }
second_wl=$(wl_uid second)
k patch pntj second --type merge -p '{"spec":{"resources":{"cpu":"500m"}}}' >/dev/null
wait_until "second's Workload asks 500m CPU" 30 eval '[[ $(wl_cpu second) == 500m ]]'
[[ $(wl_uid second) == "$second_wl" ]] || fail "a queued job's Workload was recreated, not updated"
has_pods second 0 || fail "a queued job got pods after an edit"

log "first succeeds: its Workload finishes, and second is admitted"
finish_job first 2
wait_until "first Succeeded" 30 phase_is first Succeeded
wait_until "first's Workload Finished" 30 wl_cond_is first Finished True/Succeeded
wait_until "first's Workload released (finalizer removed)" 30 eval '! in_use first'
wait_until "second admitted" 60 admitted second
wait_until "second's pods" 30 has_pods second 2
[[ $(k get pod second-rank-0 -o json | trainer_cpu) == 500m ]] || fail "second's pods do not request the admitted 500m CPU"
run_all second 2
wait_until "second Running" 30 phase_is second Running

log "a high-priority job preempts second: second's ranks go, it waits, it is not a failure"
queued_job urgent team-a high 2
wait_until "second preempted" 60 cond_reason_is second Suspended Preempted
wait_until "second's pods gone" 60 has_pods second 0
restarts_is second 0 || fail "a preemption counted as a restart"
wait_until "second's reservation released" 30 wl_cond_is second QuotaReserved False/Pending
wl_cond_is second Requeued True/Preempted || fail "Requeued condition: $(wl_cond second Requeued)"
has_event second Preempted || fail "no Preempted event on second"
wait_until "urgent admitted" 60 admitted urgent
wait_until "urgent's pods" 30 has_pods urgent 2
phase_is second Suspended || fail "second not Suspended while preempted"

log "urgent finishes: second is admitted again and its ranks come back (same generation)"
run_all urgent 2
finish_job urgent 2
wait_until "urgent Succeeded" 30 phase_is urgent Succeeded
wait_until "second re-admitted" 60 admitted second
wait_until "second's pods again" 30 has_pods second 2
generation_is second-rank-0 0 || fail "re-admission made a new restart generation"
restarts_is second 0 || fail "restarts after re-admission"
run_all second 2

log "a running job's replicas edited: it stops, gets a new Workload, is admitted at the new size, resumes"
second_wl=$(wl_uid second)
k patch pntj second --type merge -p '{"spec":{"replicas":1}}' >/dev/null
wait_until "second's Workload replaced (event DeletedWorkload)" 30 has_event second DeletedWorkload
resized() { [[ $(workload_count second) == 1 && $(wl_uid second) != "$second_wl" && $(workloads_of second | jq '.items[0].spec.podSets[0].count') == 1 ]]; }
wait_until "second's new Workload for 1 replica" 60 resized
wait_until "second's 1 pod" 60 eval 'admitted second && has_pods second 1'
generation_is second-rank-0 0 || fail "the resize made a new restart generation"
restarts_is second 0 || fail "the resize counted as a restart"
run_all second 1
finish_job second 1
wait_until "second Succeeded" 30 phase_is second Succeeded

log "a suspended job that is preempted releases its reservation, and the preempting job runs"
queued_job idle team-a low 2
wait_until "idle admitted" 60 admitted idle
wait_until "idle's pods" 30 has_pods idle 2
run_all idle 2
wait_until "idle Running" 30 phase_is idle Running
k patch pntj idle --type merge -p '{"spec":{"runPolicy":{"suspend":true}}}' >/dev/null
wait_until "idle's pods gone" 60 has_pods idle 0
[[ $(wl_cond idle QuotaReserved) == True/* ]] || fail "suspending alone released the reservation"
queued_job rush team-b high 2
wait_until "idle's reservation released" 60 wl_cond_is idle QuotaReserved False/Pending
wait_until "idle shows it" 30 cond_is idle QuotaReserved False
cond_reason_is idle Suspended Suspended || fail "idle: Suspended $(cond idle Suspended reason)"
wait_until "rush admitted" 60 admitted rush
wait_until "rush's pods" 30 has_pods rush 2
run_all rush 2
k delete pntj idle rush --wait=false >/dev/null
wait_until "no Workload of idle" 60 has_workloads idle 0
wait_until "no Workload of rush" 60 has_workloads rush 0

log "partial admission: 4 replicas asked, minReplicas 2, quota for 2: runs with 2, its gang of 2"
# The scheduler-plugins PodGroup API (its CRD only), removed again at exit: other tests need a
# cluster without it.
PODGROUP_CRD="$(dirname "$0")/podgroup_crd.yaml"
AT_EXIT+=("ka delete -f $PODGROUP_CRD --ignore-not-found")
ka apply -f "$PODGROUP_CRD" >/dev/null
wait_until "podgroups served" 30 ka get podgroups.scheduling.x-k8s.io
queued_job elastic team-a low 4 "  elasticPolicy: {minReplicas: 2}
  scheduling: {gang: {enabled: true}}"
wait_until "elastic admitted" 60 admitted elastic
min_member() { [[ $(k get podgroups.scheduling.x-k8s.io elastic -o jsonpath='{.spec.minMember}') == "$1" ]]; }
wait_until "elastic's PodGroup minMember 2 (the admitted count, not the 4 replicas)" 30 min_member 2
wait_until "elastic's 2 pods" 30 has_pods elastic 2
run_all elastic 2
ready_is() { [[ $(job_field "$1" '{.status.ready}') == "$2" ]]; }
processed "elastic's 2 ranks ready (status.ready)" 30 ready_is elastic 2
has_pods elastic 2 || fail "elastic has $(pod_count elastic) pods, not 2"
[[ $(job_field elastic '{.status.ranks}') == 2 ]] || fail "status.ranks of the partially admitted job"
ws=$(k get pod elastic-rank-0 -o json | jq -r '.spec.containers[] | select(.name == "trainer") | .env[] | select(.name == "WORLD_SIZE") | .value')
[[ $ws == 2 ]] || fail "WORLD_SIZE $ws, not 2"
[[ $(workloads_of elastic | jq -r '.items[0].spec.podSets[0].minCount') == 2 ]] || fail "minCount"

log "a running job's Workload deleted by hand stays, holding the quota, until the job's pods are gone"
queued_job waiting team-b low 2
wait_until "waiting's Workload" 30 has_workloads waiting 1
k patch pod elastic-rank-0 --type merge -p '{"metadata":{"finalizers":["petname.dev/test-hold"]}}' >/dev/null
# Bound to a node, as the scheduler would, so that the pod garbage collector does not mark it
# Failed as an unscheduled terminating pod (a Failed pod no longer holds the quota).
k create --raw "/api/v1/namespaces/$NS/pods/elastic-rank-0/binding" -f - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "elastic-rank-0"},
 "target": {"apiVersion": "v1", "kind": "Node", "name": "node-$NS"}}
JSON
old_uid=$(workloads_of elastic | jq -r '.items[0].metadata.uid')
k delete workload "$(workloads_of elastic | jq -r '.items[0].metadata.name')" --wait=false >/dev/null
wait_until "elastic stopped (WorkloadDeleted)" 30 cond_reason_is elastic Suspended WorkloadDeleted
processed "elastic-rank-1 gone" 30 has_pods elastic 1
# Kueue's side: a deletion mark alone does not make Kueue look at waiting again (it keeps counting
# the Terminating Workload's quota), a change of the ClusterQueue does. The memory quota (which no
# job here asks for) goes up, and once a new Pending event says Kueue tried waiting again, it is
# asserted that Kueue did not admit it.
tried=$(pending_events waiting)
ka patch clusterqueue "$CQ" --type json \
  -p '[{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/1/nominalQuota", "value": "65Gi"}]' >/dev/null
wait_until "Kueue tried waiting again (a Pending event)" 30 eval '(($(pending_events waiting) > tried))'
[[ -n $(workloads_of elastic | jq -r '.items[0].metadata.deletionTimestamp // ""') ]] || fail "elastic's Workload is not Terminating"
has_workloads elastic 1 || fail "a second Workload for elastic while the first is terminating"
admitted waiting && fail "waiting was admitted onto the quota of a Workload still in use"
k patch pod elastic-rank-0 --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
k delete pod elastic-rank-0 --grace-period=0 --force >/dev/null 2>&1 || true  # no kubelet ends it
new_workload() { has_workloads elastic 1 && [[ $(workloads_of elastic | jq -r '.items[0].metadata.uid') != "$old_uid" ]]; }
wait_until "elastic's new Workload" 30 new_workload
wait_until "the quota admits a job again" 60 eval 'admitted waiting || admitted elastic'

log "deleting a queued or admitted job and a running one leaves no Workload and no pod"
k delete pntj waiting elastic --wait=false >/dev/null
wait_until "no Workload of waiting" 60 has_workloads waiting 0
wait_until "no Workload of elastic" 60 has_workloads elastic 0
wait_until "no pod of elastic" 60 has_pods elastic 0
wait_until "no pod of waiting" 60 has_pods waiting 0

log "a WorkloadPriorityClass that does not exist: no Workload and a Warning, until it exists"
queued_job nopri team-b missing 1
wait_until "nopri: PriorityClassNotFound" 30 cond_reason_is nopri Suspended PriorityClassNotFound
wait_until "event PriorityClassNotFound" 30 has_event nopri PriorityClassNotFound
has_workloads nopri 0 || fail "a Workload without its WorkloadPriorityClass"
has_pods nopri 0 || fail "pods without a Workload"
kueue_priority_class "missing-$NS" 5 | ka apply -f - >/dev/null
wait_until "nopri's Workload (looked at again every 30 s)" 45 has_workloads nopri 1
[[ $(workloads_of nopri | jq -r '.items[0].spec.priority') == 5 ]] || fail "priority of the class created later"
wait_until "nopri admitted" 60 admitted nopri

log "relabelling: a queue-name typo fixed reaches the Workload, a new priority class too"
queued_job typo team-x low 1
wait_until "typo's Workload" 30 has_workloads typo 1
typo_wl=$(wl_uid typo)
k label pntj typo kueue.x-k8s.io/queue-name=team-a --overwrite >/dev/null
wait_until "typo admitted in team-a" 60 admitted typo
[[ $(workloads_of typo | jq -r '.items[0].spec.queueName') == team-a && $(wl_uid typo) == "$typo_wl" ]] || fail "typo's Workload not moved to team-a"
wait_until "typo's pod" 30 has_pods typo 1
k label pntj typo "kueue.x-k8s.io/priority-class=high-$NS" --overwrite >/dev/null
wait_until "typo's Workload priority 1000" 30 eval '[[ $(workloads_of typo | jq ".items[0].spec.priority") == 1000 ]]'
admitted typo && has_pods typo 1 || fail "a priority class change stopped typo"

log "the queue label removed: a pending job stays held by its Workload, an admitted one finishes it"
queued_job escape team-a missing 1
wait_until "escape waiting" 30 cond_reason_is escape Suspended WaitingForAdmission
k label pntj escape kueue.x-k8s.io/queue-name- >/dev/null
wait_until "escape: event QueueLabelRemoved" 30 has_event escape QueueLabelRemoved
has_pods escape 0 || fail "removing the queue label started a pod over quota"
k label pntj typo kueue.x-k8s.io/queue-name- >/dev/null
wait_until "typo: event QueueLabelRemoved" 30 has_event typo QueueLabelRemoved
run_all typo 1
finish_job typo 1
wait_until "typo's Workload Finished" 30 wl_cond_is typo Finished True/Succeeded
wait_until "escape admitted onto typo's quota" 60 admitted escape
wait_until "escape's pod" 30 has_pods escape 1

queued_job early team-a gone 1
wait_until "early: PriorityClassNotFound, no Workload" 30 cond_reason_is early Suspended PriorityClassNotFound
k label pntj early kueue.x-k8s.io/queue-name- >/dev/null
wait_until "early (label removed before its Workload): waits, QueueLabelRemoved" 30 cond_reason_is early Suspended QueueLabelRemoved
has_workloads early 0 || fail "removing the label before the Workload made a Workload"
has_pods early 0 || fail "removing the label before the Workload started a pod"
wait_until "early: event QueueLabelRemoved" 30 has_event early QueueLabelRemoved

log "an admission check's podSetUpdates reach the rank pods"
CHECK="check-$NS" CQ2="cq2-$NS"
AT_EXIT+=("ka delete clusterqueue $CQ2 --wait=false" "ka delete admissioncheck $CHECK --wait=false")
ka apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: $CHECK}
spec: {controllerName: petname.dev/test-provisioner}
---
$(kueue_cluster_queue "$CQ2" "$RF" 1)
  admissionChecksStrategy: {admissionChecks: [{name: $CHECK}]}
---
$(kueue_local_queue "$NS" team-c "$CQ2")
YAML
# What the check's controller (none runs here) would write: the check Active, then Ready.
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
ka patch admissioncheck "$CHECK" --subresource=status --type merge -p "{\"status\":{\"conditions\":[{\"type\":\"Active\",\"status\":\"True\",\"reason\":\"Active\",\"message\":\"test\",\"lastTransitionTime\":\"$(now)\"}]}}" >/dev/null
queued_job provisioned team-c low 1
wait_until "provisioned's quota reserved, its check Pending" 60 eval '[[ $(workloads_of provisioned | jq -r ".items[0].status.admissionChecks[0].state // empty") == Pending ]] && wl_cond_is provisioned QuotaReserved True/QuotaReserved'
has_pods provisioned 0 || fail "a pod before the admission check is Ready"
k patch workload "$(workloads_of provisioned | jq -r '.items[0].metadata.name')" --subresource=status --type merge -p "$(jq -cn --arg c "$CHECK" --arg t "$(now)" '{status: {admissionChecks: [{name: $c, state: "Ready", message: "provisioned", lastTransitionTime: $t,
  podSetUpdates: [{name: "ranks", labels: {"example.com/capacity": "provisioned"}, annotations: {"example.com/request": "pr-1"},
  nodeSelector: {"example.com/pool": "provisioned"}, tolerations: [{key: "example.com/pool", operator: "Exists", effect: "NoSchedule"}]}]}]}}')" >/dev/null
wait_until "provisioned admitted" 60 admitted provisioned
wait_until "provisioned's pod" 30 has_pods provisioned 1
pod=$(k get pod provisioned-rank-0 -o json)
[[ $(jq -r '.metadata.labels["example.com/capacity"]' <<<"$pod") == provisioned ]] || fail "podSetUpdates label not on the pod"
[[ $(jq -r '.metadata.annotations["example.com/request"]' <<<"$pod") == pr-1 ]] || fail "podSetUpdates annotation not on the pod"
[[ $(jq -r '.spec.nodeSelector["example.com/pool"]' <<<"$pod") == provisioned ]] || fail "podSetUpdates nodeSelector not on the pod"
[[ $(jq -r '.spec.tolerations[] | select(.key == "example.com/pool") | .operator' <<<"$pod") == Exists ]] || fail "podSetUpdates toleration not on the pod"

log "an admission that clashes with the job: a flavor is not assigned, a podSetUpdate fails the job"
run_all provisioned 1
finish_job provisioned 1
wait_until "provisioned's Workload Finished" 30 wl_cond_is provisioned Finished True/Succeeded
queued_job redpool team-c low 1 "  scheduling: {nodeSelector: {petname.dev/pool: red}}"
unassignable() { [[ $(cond redpool QuotaReserved message) == *"doesn't match node affinity"* ]]; }
wait_until "redpool (nodeSelector pool red, flavor pool blue) waits: Kueue assigns no flavor" 60 unassignable
has_pods redpool 0 || fail "a pod of a job whose nodeSelector no flavor matches"
k delete pntj redpool --wait=false >/dev/null
queued_job clash team-c low 1 "  scheduling: {nodeSelector: {example.com/pool: other}}"
wait_until "clash's quota reserved" 60 wl_cond_is clash QuotaReserved True/QuotaReserved
k patch workload "$(workloads_of clash | jq -r '.items[0].metadata.name')" --subresource=status --type merge -p "$(jq -cn --arg c "$CHECK" --arg t "$(now)" '{status: {admissionChecks: [{name: $c, state: "Ready", message: "provisioned", lastTransitionTime: $t,
  podSetUpdates: [{name: "ranks", nodeSelector: {"example.com/pool": "provisioned"}}]}]}}')" >/dev/null
wait_until "clash Failed, reason FailedToStart" 60 cond_reason_is clash Failed FailedToStart
wl_cond_is clash Finished True/FailedToStart || fail "clash's Workload not Finished/FailedToStart: $(wl_cond clash Finished)"
has_pods clash 0 || fail "a pod of a job whose admission check's nodeSelector clashes with its own"
wait_until "event FailedToStart" 30 has_event clash FailedToStart
no_reservations() { [[ $(ka get clusterqueue "$CQ2" -o jsonpath='{.status.reservingWorkloads}') == 0 ]]; }
wait_until "$CQ2 reserves nothing: the clash freed its quota" 30 no_reservations

log "an evicted job's pod stuck Terminating keeps the reservation only for its grace period"
k delete pntj nopri --wait=false >/dev/null
wait_until "no Workload of nopri" 60 has_workloads nopri 0
queued_job stuck team-a low 1 "  template: {spec: {terminationGracePeriodSeconds: 2}}"
wait_until "stuck admitted" 60 admitted stuck
wait_until "stuck's pod" 30 has_pods stuck 1
# Bound to a Node that never confirms the deletion (no kubelet here): once deleted the pod stays
# Terminating past its grace period, as on a lost node. The Node object exists, so that the pod
# garbage collector does not remove the pod as one of a node that is gone.
AT_EXIT+=("ka delete node lost-$NS --wait=false")
ka create -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata: {name: lost-$NS}
YAML
k create --raw "/api/v1/namespaces/$NS/pods/stuck-rank-0/binding" -f - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "stuck-rank-0"},
 "target": {"apiVersion": "v1", "kind": "Node", "name": "lost-$NS"}}
JSON
run_all stuck 1
wait_until "stuck Running" 30 phase_is stuck Running
queued_job bump team-b high 2
wait_until "stuck preempted" 60 cond_reason_is stuck Suspended Preempted
terminating() { [[ -n $(k get pod stuck-rank-0 -o jsonpath='{.metadata.deletionTimestamp}') ]]; }
wait_until "stuck-rank-0 Terminating" 30 terminating
wait_until "stuck's reservation released once the grace period is over" 60 wl_cond_is stuck QuotaReserved False/Pending
terminating || fail "stuck-rank-0 was gone before the release: the stuck case was not shown"
wait_until "bump admitted" 60 admitted bump
k delete pod stuck-rank-0 --grace-period=0 --force >/dev/null 2>&1 || true  # no kubelet ends it
k delete pntj stuck bump --wait=false >/dev/null
wait_until "no Workload of stuck" 60 has_workloads stuck 0
wait_until "no Workload of bump" 60 has_workloads bump 0

log "without the label nothing changes: no Workload, pods at once"
create_job plain 1
wait_until "plain's pod" 30 has_pods plain 1
has_workloads plain 0 || fail "a job without queue label got a Workload"
log "PASS"
