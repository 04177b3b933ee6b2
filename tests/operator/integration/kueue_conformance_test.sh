#!/usr/bin/env bash
# Kueue's own definition of a correct job integration, applied to PetNameTrainingJobs: the cases of
# Kueue v0.17.0's job-integration tests (test/integration/singlecluster/controller/jobs/pytorchjob/
# pytorchjob_controller_test.go with the shared helpers of .../jobs/kubeflow/kubeflowjob.go, the
# batch Job cases of .../jobs/job/job_controller_test.go that concern any job kind, and the
# maximum execution time of .../controller/core/workload_controller_test.go), each ported as a
# scenario KCnn against the real API server, the real Kueue v0.17.0 (tests/cluster/kueue-up.sh) and
# the real petname-operator --kueue, with pods moved through phases by status patches as a kubelet
# would. docs/contributing/testing.md ("Kueue conformance") maps every case of those files to its scenario or
# to the documented reason it has none; tests/lint/kueue_conformance.py keeps that table, the user
# guide's table of what is supported and the KCnn scenarios below in step.
#
# Kueue's tests start a manager per configuration; this suite starts Kueue once, on the operator
# tests' control plane, with waitForPodsReady (timeout and recoveryTimeout PODS_READY_S), a
# requeuing strategy that deactivates a Workload at its second PodsReadyTimeout (backoff 1 s),
# manageJobsWithoutQueueName, a managedJobsNamespaceSelector that leaves out kube-system,
# kueue-system (Kueue requires it) and namespaces labelled petname.dev/kueue-conformance=unmanaged,
# and labelKeysToCopy [team]. The operator reads that same file (--kueue-config); KC03 runs it
# without (Kueue's defaults). The slow cases run in ClusterQueues of their own beside the others:
# KC26 and KC16 (Kueue's timeouts, pods' grace periods) in background shells whose checks are
# counted at the end, KC25, KC27 and KC29 (never ready, a failure long after the start, the
# maximum execution time) by jobs created first and checked last.
#
# Checks print `ok - KCnn ...` / `not ok - KCnn ...` (tests/lib/checks.sh); a scenario that stops
# early prints `not ok - KCnn stopped early` and the suite fails. "Nothing happened" is asserted
# only after proof that the operator or Kueue processed the change (a condition, an event, a
# Workload field), never after a sleep.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
CHECKS_LOG=$LOG_DIR/checks.log
: >"$CHECKS_LOG"
# shellcheck source-path=SCRIPTDIR source=../../lib/checks.sh
source "$ROOT/tests/lib/checks.sh"
checks_plan 110
# shellcheck source-path=SCRIPTDIR source=../../support/kueue.sh
source "$ROOT/tests/support/kueue.sh"

ka() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

PODS_READY_S=20
PETNAME_KUEUE_WAIT_FOR_PODS_READY="${PODS_READY_S}s ${PODS_READY_S}s" PETNAME_KUEUE_REQUEUING="1 1 1" \
  PETNAME_KUEUE_MANAGE_JOBS_WITHOUT_QUEUE_NAME=true PETNAME_KUEUE_LABEL_KEYS_TO_COPY=team \
  PETNAME_KUEUE_MANAGED_NAMESPACES='{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kueue-system]}, {key: petname.dev/kueue-conformance, operator: NotIn, values: [unmanaged]}]}' \
  "$ROOT/tests/cluster/kueue-up.sh" --replace "$PETNAME_CLUSTER_DIR" >/dev/null
# shellcheck source=/dev/null
source "$PETNAME_CLUSTER_DIR/cluster.env"
OTHER_NS="$NS-other"

# ---- helpers -------------------------------------------------------------------------------------
# queued_job NAME REPLICAS [LABELS [SPEC_YAML]]: a job of REPLICAS x CPU (default 1) CPU whose
# gang restarts after RESTART_S (default 1) s; LABELS is a flow map such as
# {kueue.x-k8s.io/queue-name: main} (none by default); SPEC_YAML more spec fields.
queued_job() {
  JOB_LABELS=${3:-} create_job "$1" "$2" "  resources: {cpu: \"${CPU:-1}\"}
  runPolicy: {restartBackoffSeconds: ${RESTART_S:-1}}
${4:-}"
}
in_queue() { echo "{kueue.x-k8s.io/queue-name: $1${2:+, kueue.x-k8s.io/priority-class: $2}}"; }
wls() { k get workloads -l "petname.dev/job-name=$1" -o json; }
wl() { wls "$1" | jq -r ".items[0]$2"; }
wl_count() { wls "$1" | jq '.items | length'; }
has_wl() { [[ $(wl_count "$1") == "$2" ]]; }
wl_name() { wl "$1" .metadata.name; }
wl_cond() { wls "$1" | jq -r --arg t "$2" '.items[0].status.conditions[]? | select(.type == $t) | .status + "/" + .reason'; }
wl_is() { [[ $(wl_cond "$1" "$2") == "$3" ]]; }
wl_field_is() { [[ $(wl "$1" "$2") == "$3" ]]; }
admitted() { cond_is "$1" Admitted True; }
# admit_run JOB N: Kueue admitted it and its N rank pods are Running and ready.
admit_run() {
  eventually 60 eval "admitted $1 && has_pods $1 $2" || return 1
  run_all "$1" "$2"
  eventually 30 phase_is "$1" Running
}
finish_job() {
  local r
  for ((r = 0; r < $2; r++)); do set_phase "$1-rank-$r" Succeeded; done
}
deactivate() { k patch workload "$(wl_name "$1")" --type merge -p "{\"spec\":{\"active\":$2}}" >/dev/null; }
released() { wl_is "$1" QuotaReserved False/Pending; }
pod_json() { k get pod "$1" -o json; }
pod_has() { [[ $(pod_json "$1" | jq -r "$2") == "$3" ]]; }
# set_check JOB CHECK UPDATES_JSON: the admission check's controller sets CHECK Ready with these
# podSetUpdates.
set_check() {
  k patch workload "$(wl_name "$1")" --subresource=status --type merge -p "$(jq -cn --arg c "$2" \
    --arg t "$(now)" --argjson u "$3" '{status: {admissionChecks: [{name: $c, state: "Ready",
    message: "ready", lastTransitionTime: $t, podSetUpdates: $u}]}}')" >/dev/null
}
operator_log_has() { grep -q -- "$1" "$LOG_DIR/operator.log"; }
# bind POD NODE: what the scheduler does; a pod bound to a Node that never confirms its deletion
# stays Terminating past its grace period, as on a lost node.
bind() {
  k create --raw "/api/v1/namespaces/$NS/pods/$1/binding" -f - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "$1"},
 "target": {"apiVersion": "v1", "kind": "Node", "name": "$2"}}
JSON
}
terminating() { [[ -n $(k get pod "$1" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null) ]]; }
# scenario ID FUNCTION WHAT: runs one case; one that returns early counts as a failed check, and
# an operator that died ends the suite.
scenario() {
  log "$1: $3"
  "$2" || not_ok "$1 stopped early"
  if ! kill -0 "$OP_PID" 2>/dev/null; then
    not_ok "$1: the operator is still running"
    checks_finish 1
    exit 1
  fi
}
# background ID FUNCTION WHAT: runs a case that waits on Kueue's timers or grace periods (in a
# ClusterQueue of its own) beside the others, its check lines kept in a file; collect reports them.
BACKGROUND=()
background() {
  log "$1 (beside the others): $3"
  (
    "$2" || not_ok "$1 stopped early"
  ) >"$LOG_DIR/$1.checks" 2>>"$CHECKS_LOG" &
  BACKGROUND+=("$!:$1")
}
# collect: waits for the background cases and counts their checks as this shell's.
collect() {
  local entry line
  for entry in "${BACKGROUND[@]}"; do
    wait "${entry%%:*}" || true
    while IFS= read -r line; do
      case $line in
        "ok - "*) ok "${line#ok - }" ;;
        "not ok - "*) not_ok "${line#not ok - }" ;;
      esac
    done <"$LOG_DIR/${entry#*:}.checks"
  done
  BACKGROUND=()
}
# need NAME COMMAND...: check, and fail (for `|| return 1`) when that check failed.
need() {
  local before=$FAILED
  check "$@"
  ((FAILED == before))
}
# released_after JOB POD: the Workload's reservation was released no earlier than the end of the
# deleted POD's grace period (server times, to the second).
released_after() {
  local released grace
  released=$(wls "$1" | jq -r '.items[0].status.conditions[] | select(.type == "QuotaReserved" and .status == "False") | .lastTransitionTime')
  grace=$(k get pod "$2" -o jsonpath='{.metadata.deletionTimestamp}')
  [[ -n $released && -n $grace ]] && (($(date -d "$released" +%s) >= $(date -d "$grace" +%s)))
}

# ---- the cluster's Kueue objects -------------------------------------------------------------------
drop_finalizers() {
  local o
  for o in $(k get workloads,pods -o name); do
    k patch "$o" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null || true
  done
}
CQS="cq-$NS cq-lanes-$NS cq-fit-$NS cq-pods-$NS cq-check-$NS cq-prio-$NS cq-lost-$NS cq-tas-$NS"
FLAVORS="rf-$NS spot-$NS ondemand-$NS pods-$NS check-$NS tas-$NS"
AT_EXIT+=("ka delete clusterqueue $CQS --wait=false" "ka delete resourceflavor $FLAVORS --wait=false"
  "ka delete workloadpriorityclass low-$NS mid-$NS upper-$NS high-$NS"
  "ka delete priorityclass pods-$NS gd-$NS" "ka delete admissioncheck check-$NS"
  "ka delete topology topo-$NS" "ka delete node lost-$NS tas-$NS"
  "ka delete namespace $OTHER_NS --wait=false" drop_finalizers)
flavor() { # NAME INSTANCE [EXTRA_SPEC]
  printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: %s}\n' "$1"
  printf 'spec: {nodeLabels: {instance: %s}%s}\n' "$2" "${3:+, $3}"
}
# cq NAME RESOURCES FLAVOR=QUOTAS... [-- EXTRA]: a ClusterQueue for every namespace, preempting
# lower priorities within itself; QUOTAS is "cpu:2,memory:64Gi".
cq() {
  local name=$1 covered=$2 f res q
  shift 2
  printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\n' "$name"
  printf 'spec:\n  namespaceSelector: {}\n  preemption: {withinClusterQueue: LowerPriority}\n'
  printf '  resourceGroups:\n  - coveredResources: [%s]\n    flavors:\n' "$covered"
  for f in "$@"; do
    [[ $f == -- ]] && break
    printf '    - name: %s\n      resources:\n' "${f%%=*}"
    for res in ${f#*=}; do
      q=${res#*:}
      printf '      - {name: %s, nominalQuota: %s}\n' "${res%%:*}" "$q"
    done
  done
}
ka apply -f - >/dev/null <<YAML
$(flavor "rf-$NS" main)
---
$(flavor "spot-$NS" spot)
---
$(flavor "ondemand-$NS" on-demand)
---
$(flavor "pods-$NS" pods)
---
$(flavor "check-$NS" checked)
---
$(cq "cq-$NS" "cpu, memory" "rf-$NS=cpu:4 memory:64Gi")
---
$(cq "cq-lanes-$NS" "cpu, memory" "rf-$NS=cpu:4 memory:64Gi")
---
$(cq "cq-fit-$NS" "cpu, memory" "spot-$NS=cpu:3 memory:64Gi" "ondemand-$NS=cpu:5 memory:64Gi")
---
$(cq "cq-pods-$NS" pods "pods-$NS=pods:5")
---
$(cq "cq-prio-$NS" "cpu, memory" "rf-$NS=cpu:2 memory:64Gi")
---
$(cq "cq-lost-$NS" "cpu, memory" "rf-$NS=cpu:1 memory:64Gi")
---
$(kueue_priority_class "low-$NS" 10)
---
$(kueue_priority_class "mid-$NS" 100)
---
$(kueue_priority_class "upper-$NS" 500)
---
$(kueue_priority_class "high-$NS" 1000)
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pods-$NS}
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: check-$NS}
spec: {controllerName: petname.dev/conformance}
YAML
ka patch admissioncheck "check-$NS" --subresource=status --type merge -p "{\"status\":{\"conditions\":[{\"type\":\"Active\",\"status\":\"True\",\"reason\":\"Active\",\"message\":\"played by the test\",\"lastTransitionTime\":\"$(now)\"}]}}" >/dev/null
ka apply -f - >/dev/null <<YAML
$(cq "cq-check-$NS" "cpu, memory" "check-$NS=cpu:2 memory:64Gi")
  admissionChecksStrategy: {admissionChecks: [{name: check-$NS}]}
YAML
ka apply -f - >/dev/null <<YAML
$(kueue_local_queue "$NS" main "cq-$NS")
---
$(kueue_local_queue "$NS" lanes "cq-lanes-$NS")
---
$(kueue_local_queue "$NS" fit "cq-fit-$NS")
---
$(kueue_local_queue "$NS" pods "cq-pods-$NS")
---
$(kueue_local_queue "$NS" checked "cq-check-$NS")
---
$(kueue_local_queue "$NS" prio "cq-prio-$NS")
---
$(kueue_local_queue "$NS" lost "cq-lost-$NS")
YAML
ka create namespace "$OTHER_NS" >/dev/null
kueue_local_queue "$OTHER_NS" elsewhere "cq-$NS" | ka apply -f - >/dev/null
start_operator --kueue --kueue-config "$PETNAME_KUEUE_CONFIG"

# ---- the pods-ready cases, in cq-lanes; KC25 and KC29 are checked last --------------------------------
# KC25 + KC28: never ready: evicted at the timeout, queued again after the backoff, deactivated at
# its second timeout (requeuing limit 1). KC29: kueue.x-k8s.io/max-exec-time-seconds: 3 (Kueue
# deactivates it 3 s after its admission, whatever its rank does).
queued_job kc25 1 "$(in_queue lanes)"
queued_job kc29 1 "{kueue.x-k8s.io/queue-name: lanes, kueue.x-k8s.io/max-exec-time-seconds: \"3\"}"
# KC27: ready at once; its rank fails at the end, long after the timeout since its admission.
queued_job kc27 1 "$(in_queue lanes)"
# KC26: ready, then its rank fails and is not replaced within recoveryTimeout (its gang restart
# waits 300 s): evicted from WaitForRecovery; admitted again, it must be timed as a start.
RESTART_S=300 queued_job kc26 1 "$(in_queue lanes)"
kc26() {
  check "KC29 Workload maximumExecutionTimeSeconds 3, from the label" \
    eventually 30 wl_field_is kc29 .spec.maximumExecutionTimeSeconds 3
  check "KC27 admitted, its rank runs" admit_run kc27 1
  need "KC26 admitted and ready: PodsReady True/Started" \
    eval 'admit_run kc26 1 && eventually 30 wl_is kc26 PodsReady True/Started' || return 1
  fail_pod kc26-rank-0 1 Error
  check "KC26 its rank fails: PodsReady False/WaitForRecovery" eventually 30 wl_is kc26 PodsReady False/WaitForRecovery
  need "KC26 not recovered within recoveryTimeout: evicted (event PodsReadyTimeout)" \
    eventually 60 has_event kc26 PodsReadyTimeout || return 1
  # The eviction's pod goes and the next admission's comes within about a second: the new one is
  # told by its restart generation (status.restarts 1 since the failure).
  need "KC26 admitted again after the backoff: its rank comes back (a pod of generation 1)" \
    eventually 60 eval 'admitted kc26 && has_pods kc26 1 && generation_is kc26-rank-0 1' || return 1
  check "KC26 the new admission is timed as a start (PodsReady False/WaitForStart)" \
    eventually 30 wl_is kc26 PodsReady False/WaitForStart
  run_all kc26 1
  check "KC26 ready: PodsReady True/Started" eventually 30 wl_is kc26 PodsReady True/Started
  check "KC26 not evicted again: admitted, not deactivated" \
    eval 'admitted kc26 && [[ $(wl_cond kc26 Evicted) != True/* && $(wl kc26 .spec.active) != false ]]'
  k delete pntj kc26 >/dev/null
}
background KC26 kc26 "evicted from WaitForRecovery, then admitted again and timed as a start"

kc16() {
  ka create -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata: {name: lost-$NS}
YAML
  local grace="  template: {spec: {terminationGracePeriodSeconds: 3}}"
  queued_job kc16 1 "$(in_queue lost)" "$grace"
  need "KC16 kc16 admitted, its pod bound to a node that never answers, Running" \
    eval 'eventually 60 has_pods kc16 1 && bind kc16-rank-0 lost-$NS && admit_run kc16 1' || return 1
  queued_job kc16w 1 "$(in_queue lost)" "$grace"
  check "KC16 kc16w waits for the quota" eventually 30 cond_reason_is kc16w Suspended WaitingForAdmission
  local old
  old=$(wl kc16 .metadata.uid)
  k delete workload "$(wl_name kc16)" --wait=false >/dev/null
  check "KC16 Workload deleted by hand: kc16 stops (WorkloadDeleted), its pod Terminating" \
    eventually 30 eval 'cond_reason_is kc16 Suspended WorkloadDeleted && terminating kc16-rank-0'
  check "KC16 the old Workload goes once the grace period is over: kc16w is admitted, kc16 has a new one" \
    eventually 60 eval 'admitted kc16w && has_wl kc16 1 && [[ $(wl kc16 .metadata.uid) != '"$old"' ]]'
  new_after_grace() {
    (($(date -d "$(wl kc16 .metadata.creationTimestamp)" +%s) >= $(date -d "$(k get pod kc16-rank-0 -o jsonpath='{.metadata.deletionTimestamp}')" +%s)))
  }
  check "KC16 ... not before the end of the pod's grace period, and while it is still Terminating" \
    eval 'new_after_grace && terminating kc16-rank-0'
  k delete pod kc16-rank-0 --grace-period=0 --force >/dev/null 2>&1 || true
  k delete pntj kc16 >/dev/null
  need "KC12 kc16w runs on the lost node" eval 'eventually 30 has_pods kc16w 1 && bind kc16w-rank-0 lost-$NS && admit_run kc16w 1' || return 1
  queued_job kc12 1 "$(in_queue lost "high-$NS")"
  check "KC12 preempted: kc16w Suspended/Preempted, its pod Terminating" \
    eventually 60 eval 'cond_reason_is kc16w Suspended Preempted && terminating kc16w-rank-0'
  check "KC12 released, kc12 admitted, the pod still Terminating" \
    eventually 60 eval 'released kc16w && admitted kc12 && terminating kc16w-rank-0'
  check "KC12 ... the reservation was released no earlier than the end of the pod's grace period" \
    released_after kc16w kc16w-rank-0
  k delete pod kc16w-rank-0 --grace-period=0 --force >/dev/null 2>&1 || true
  k delete pntj kc16w kc12 >/dev/null
}
background KC16 kc16 "a pod on a lost node holds a deleted or preempted Workload's quota for its grace period only"

kc01() {
  k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata:
  name: kc01
  labels: {team: vision, other: x}
  annotations: {provreq.kueue.x-k8s.io/ValidUntilSeconds: "0", note: not-copied}
spec:
  replicas: 2
  image: petname:test
  dataset: {path: /data/pets.csv}
  resources: {cpu: "1"}
  scheduling: {priorityClassName: pods-$NS}
YAML
  need "KC01 created without a queue: a Workload" eventually 30 has_wl kc01 1 || return 1
  check "KC01 the job waits (Suspended, WaitingForAdmission) with no pod" \
    eventually 30 eval 'cond_reason_is kc01 Suspended WaitingForAdmission && has_pods kc01 0'
  check "KC01 the Workload has no queueName" wl_field_is kc01 '.spec | has("queueName")' false
  check "KC01 priority from the pods' PriorityClass (1000, kind PriorityClass)" \
    eval 'wl_field_is kc01 .spec.priority 1000 && wl_field_is kc01 .spec.priorityClassRef.kind PriorityClass'
  check "KC01 labelKeysToCopy: label team copied, other not" \
    eval 'wl_field_is kc01 .metadata.labels.team vision && wl_field_is kc01 .metadata.labels.other null'
  check "KC01 provreq.kueue.x-k8s.io annotations copied, others not" \
    wl_field_is kc01 '.metadata.annotations | keys | join(",")' provreq.kueue.x-k8s.io/ValidUntilSeconds
  local uid
  uid=$(wl kc01 .metadata.uid)
  k label pntj kc01 kueue.x-k8s.io/queue-name=main team=audio --overwrite >/dev/null
  need "KC01 labelled: the same Workload moves to queue main" \
    eventually 30 eval '[[ $(wl kc01 .spec.queueName) == main && $(wl kc01 .metadata.uid) == '"$uid"' ]]' || return 1
  check "KC01 the Workload's label team is not updated when the job's is" wl_field_is kc01 .metadata.labels.team vision
  need "KC01 admitted: 2 pods, Running" admit_run kc01 2 || return 1
  check "KC01 the pods carry the flavor's nodeSelector instance=main" pod_has kc01-rank-0 .spec.nodeSelector.instance main
  check "KC01 the pods carry Kueue's pod set and queue labels" \
    eval 'pod_has kc01-rank-1 ".metadata.labels[\"kueue.x-k8s.io/podset\"]" ranks &&
      pod_has kc01-rank-1 ".metadata.labels[\"kueue.x-k8s.io/local-queue-name\"]" main &&
      pod_has kc01-rank-1 ".metadata.labels[\"kueue.x-k8s.io/cluster-queue-name\"]" cq-$NS'
  # The job stops: its ranks go, and its Workload after them (the finalizer holds the quota until
  # then); a new Workload under the same name is then created and may be admitted at once, so
  # "no pod" lasts only until the new ranks come: what is asserted is that the old ranks are gone.
  local rank0
  rank0=$(pod_json kc01-rank-0 | jq -r .metadata.uid)
  k patch pntj kc01 --type merge -p '{"spec":{"replicas":3}}' >/dev/null
  check "KC01 replicas 2 -> 3: the job stops, its Workload is deleted (event DeletedWorkload)" \
    eventually 30 eval 'has_event kc01 DeletedWorkload && ! pod_has kc01-rank-0 .metadata.uid '"$rank0"
  check "KC01 a new Workload of count 3" \
    eventually 60 eval '[[ $(wl kc01 .metadata.uid) != '"$uid"' && $(wl kc01 ".spec.podSets[0].count") == 3 ]]'
  need "KC01 admitted again: 3 pods with the flavor's nodeSelector" \
    eval 'admit_run kc01 3 && pod_has kc01-rank-2 .spec.nodeSelector.instance main' || return 1
  finish_job kc01 3
  check "KC01 the job Succeeded: its Workload is Finished" eventually 30 wl_is kc01 Finished True/Succeeded
}
scenario KC01 kc01 "ShouldReconcileJob: no queue, priority, copies, queue label, admission, resize, finish"

kc01b() {
  ka apply -f - >/dev/null <<YAML
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gd-$NS}
value: 7
globalDefault: true
YAML
  queued_job kc01b 1 "$(in_queue main)"
  check "KC01 a globalDefault PriorityClass and no class on the job: priority 7, its PriorityClass" \
    eventually 30 eval 'wl_field_is kc01b .spec.priority 7 && wl_field_is kc01b .spec.priorityClassRef.name gd-$NS'
  ka delete priorityclass "gd-$NS" >/dev/null
  k delete pntj kc01b >/dev/null
  CPU=2 queued_job kc01c 1 "$(in_queue prio)" "  scheduling: {priorityClassName: pods-$NS}"
  need "KC01 a job whose pods run at 1000 fills cq-prio" admit_run kc01c 1 || return 1
  k create -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: kc01-at-500}
spec:
  queueName: prio
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: upper-$NS}
  priority: 500
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: petname:test, resources: {requests: {cpu: "1"}}}]
YAML
  tried() { [[ $(k get workload kc01-at-500 -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].message}') == *insufficient* ]]; }
  check "KC01 a Workload at 500 in that queue: Kueue tried it (insufficient quota)" eventually 30 tried
  check "KC01 ... and did not preempt the job whose pods run at 1000" \
    eval 'admitted kc01c && ! has_event kc01c Preempted'
  k delete workload kc01-at-500 >/dev/null
  k delete pntj kc01c >/dev/null
}
scenario KC01 kc01b "the Workload's priority from the pods' PriorityClass or the globalDefault one"

kc02() {
  ka label namespace "$NS" petname.dev/kueue-conformance=unmanaged >/dev/null
  create_job kc02 1
  queued_job kc02q 1 "$(in_queue main)"
  check "KC02 unmanaged namespace: a job without a queue runs (its pod)" eventually 30 has_pods kc02 1
  check "KC02 ... and has no Workload" has_wl kc02 0
  check "KC02 a job in a queue waits: Suspended/NamespaceNotManaged, a Warning event" \
    eventually 30 eval 'cond_reason_is kc02q Suspended NamespaceNotManaged && has_event kc02q NamespaceNotManaged'
  check "KC02 ... with no Workload and no pod" eval 'has_wl kc02q 0 && has_pods kc02q 0'
  ka label namespace "$NS" petname.dev/kueue-conformance- >/dev/null
  k delete pntj kc02 kc02q >/dev/null
}
scenario KC02 kc02 "ShouldNotReconcileUnmanagedJob: a namespace outside managedJobsNamespaceSelector"

kc04() {
  queued_job kc04 1 "$(in_queue checked)" "  template:
    metadata: {labels: {old-label-key: old-label-value}, annotations: {old-ann-key: old-ann-value}}"
  need "KC04 quota reserved, the check Pending, no pod" eventually 60 eval 'wl_is kc04 QuotaReserved True/QuotaReserved &&
    [[ $(wl kc04 ".status.admissionChecks[0].state") == Pending ]] && has_pods kc04 0' || return 1
  set_check kc04 "check-$NS" '[{"name": "ranks", "annotations": {"ann1": "ann-value1"}, "labels": {"label1": "label-value1"},
    "nodeSelector": {"selector1": "selector-value1"}, "tolerations": [{"key": "selector1", "value": "selector-value1", "operator": "Equal", "effect": "NoSchedule"}]}]'
  need "KC04 admitted once the check is Ready: its pod" eventually 60 eval 'admitted kc04 && has_pods kc04 1' || return 1
  local p
  p=$(pod_json kc04-rank-0)
  check "KC04 the pod has the update's and the template's labels" \
    eval '[[ $(jq -r ".metadata.labels.label1 + \" \" + .metadata.labels[\"old-label-key\"]" <<<"$p") == "label-value1 old-label-value" ]]'
  check "KC04 the pod has the update's and the template's annotations" \
    eval '[[ $(jq -r ".metadata.annotations.ann1 + \" \" + .metadata.annotations[\"old-ann-key\"]" <<<"$p") == "ann-value1 old-ann-value" ]]'
  check "KC04 the pod has the flavor's and the update's nodeSelector" \
    eval '[[ $(jq -r ".spec.nodeSelector.instance + \" \" + .spec.nodeSelector.selector1" <<<"$p") == "checked selector-value1" ]]'
  check "KC04 the pod has the update's toleration" \
    eval '[[ $(jq -r ".spec.tolerations[] | select(.key == \"selector1\") | .value" <<<"$p") == selector-value1 ]]'
  run_all kc04 1
  deactivate kc04 false
  check "KC04 admission removed (deactivated): the job stops, its pod goes, the reservation is released" \
    eventually 30 eval 'cond_reason_is kc04 Suspended Deactivated && has_pods kc04 0 && released kc04'
  check "KC04 the job itself never took the updates (its template unchanged)" \
    eval '[[ $(job_field kc04 "{.spec.template.metadata.labels}") == "{\"old-label-key\":\"old-label-value\"}" && -z $(job_field kc04 "{.spec.scheduling.nodeSelector}") ]]'
  k delete pntj kc04 >/dev/null
  queued_job kc13 1 "$(in_queue checked)" "  template: {metadata: {labels: {label1: old}}}"
  need "KC13 quota reserved" eventually 60 wl_is kc13 QuotaReserved True/QuotaReserved || return 1
  set_check kc13 "check-$NS" '[{"name": "ranks", "labels": {"label1": "new"}}]'
  check "KC13 a podSetUpdate label that conflicts with the job's: Failed/FailedToStart, no pod" \
    eventually 60 eval 'cond_reason_is kc13 Failed FailedToStart && has_pods kc13 0'
  check "KC13 the Workload Finished/FailedToStart (its quota freed)" wl_is kc13 Finished True/FailedToStart
  check "KC13 the job keeps its label value" eval '[[ $(job_field kc13 "{.spec.template.metadata.labels.label1}") == old ]]'
  k delete pntj kc13 >/dev/null
}
scenario KC04 kc04 "admission checks' podSetUpdates reach the pods, not the job; a conflicting label is not admitted"

kc05() {
  queued_job kc05 2 "$(in_queue main)"
  need "KC05 admitted, no pod ready: PodsReady False/WaitForStart (No progress)" \
    eventually 60 eval 'admitted kc05 && has_pods kc05 2 && wl_is kc05 PodsReady False/WaitForStart' || return 1
  set_phase kc05-rank-0 Running
  check "KC05 one of two pods ready: the job counts it" eventually 30 eval '[[ $(job_field kc05 "{.status.ready}") == 1 ]]'
  check "KC05 ... PodsReady still False/WaitForStart (Single pod ready)" wl_is kc05 PodsReady False/WaitForStart
  set_phase kc05-rank-1 Running
  check "KC06 all ready: PodsReady True/Started (Running; PodsReady=False before)" eventually 30 wl_is kc05 PodsReady True/Started
  fail_pod kc05-rank-1 1 Error
  check "KC07 a rank fails after readiness: PodsReady False/WaitForRecovery" eventually 30 wl_is kc05 PodsReady False/WaitForRecovery
  restarted() { has_pods kc05 2 && generation_is kc05-rank-0 1 && generation_is kc05-rank-1 1; }
  need "KC27 the gang restarts within recoveryTimeout" eventually 30 restarted || return 1
  run_all kc05 2
  check "KC27 PodsReady True/Recovered" eventually 30 wl_is kc05 PodsReady True/Recovered
  check "KC27 ... not evicted, still admitted" eval '! has_event kc05 PodsReadyTimeout && admitted kc05'
  deactivate kc05 false
  check "KC08 admission removed with PodsReady True before: False/WaitForStart" \
    eventually 30 eval 'released kc05 && wl_is kc05 PodsReady False/WaitForStart'
  k delete pntj kc05 >/dev/null
}
scenario KC05 kc05 "JobControllerWhenWaitForPodsReadyEnabled: PodsReady through start, failure, recovery, eviction"

kc09() {
  CPU=3 queued_job kc09a 1 "$(in_queue fit)"
  need "KC09 a 3-CPU job fits in spot (3 CPU): its pod has instance=spot" \
    eval 'admit_run kc09a 1 && pod_has kc09a-rank-0 .spec.nodeSelector.instance spot' || return 1
  CPU=2 queued_job kc09b 1 "$(in_queue fit)"
  need "KC09 a 2-CPU job no longer fits in spot, and gets on-demand" \
    eval 'admit_run kc09b 1 && pod_has kc09b-rank-0 .spec.nodeSelector.instance on-demand' || return 1
  CPU=3 queued_job kc18 1 "$(in_queue fit)" "  scheduling: {priorityClassName: pods-$NS, nodeSelector: {instance: spot}}"
  need "KC18 a job whose pods run at 1000, for spot only, preempts kc09a there" \
    eval 'eventually 60 has_event kc09a Preempted && admit_run kc18 1' || return 1
  need "KC18 kc09a is admitted again in the other flavor: its new pod has instance=on-demand" \
    eval 'admit_run kc09a 1 && pod_has kc09a-rank-0 .spec.nodeSelector.instance on-demand' || return 1
  deactivate kc09a false
  check "KC10 admission removed: the pod goes, the job's own nodeSelector untouched" \
    eventually 30 eval 'has_pods kc09a 0 && [[ -z $(job_field kc09a "{.spec.scheduling.nodeSelector}") ]]'
  k delete pntj kc09a kc09b kc18 >/dev/null
  k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: kc21, labels: {kueue.x-k8s.io/queue-name: pods}}
spec: {replicas: 2, image: petname:test, dataset: {path: /data/pets.csv}}
YAML
  check "KC21 no requests, admitted by pod count only: the flavor's nodeSelector" \
    eval 'admit_run kc21 2 && pod_has kc21-rank-1 .spec.nodeSelector.instance pods'
  k delete pntj kc21 >/dev/null
}
scenario KC09 kc09 "ShouldScheduleJobsAsTheyFitInTheirClusterQueue; a preempted job admitted in another flavor"

kc14() {
  queued_job kc14a 2 "$(in_queue prio "high-$NS")"
  need "KC14 kc14a (high) runs" admit_run kc14a 2 || return 1
  fail_pod kc14a-rank-0 1 Error
  need "KC14 kc14a restarts its gang (status.restarts 1, its pods of generation 1)" \
    eventually 60 eval 'restarts_is kc14a 1 && has_pods kc14a 2 && generation_is kc14a-rank-0 1' || return 1
  run_all kc14a 2
  queued_job kc14b 2 "$(in_queue prio "mid-$NS")"
  check "KC14 kc14b (mid) waits for quota" eventually 30 cond_reason_is kc14b Suspended WaitingForAdmission
  k label pntj kc14a "kueue.x-k8s.io/priority-class=upper-$NS" --overwrite >/dev/null
  check "KC14 kc14a relabelled upper after its restart: Workload priority 500" \
    eventually 30 wl_field_is kc14a .spec.priority 500
  check "KC14 ... still above kc14b: kc14a runs on, kc14b waits" eval 'admitted kc14a && has_pods kc14a 2 && ! admitted kc14b'
  k label pntj kc14a "kueue.x-k8s.io/priority-class=low-$NS" --overwrite >/dev/null
  check "KC14 kc14a relabelled low: Workload priority 10" eventually 30 wl_field_is kc14a .spec.priority 10
  check "KC14 kc14b preempts kc14a: kc14a Suspended/Preempted, no pod" \
    eventually 60 eval 'cond_reason_is kc14a Suspended Preempted && has_pods kc14a 0'
  check "KC14 kc14a's reservation released, kc14b admitted" eventually 60 eval 'released kc14a && admitted kc14b'
  check "KC14 no Workload update was refused (operator log)" eval '! operator_log_has "denied the request"'
  run_all kc14b 2
  k delete pntj kc14a >/dev/null
  queued_job kc14c 2 "$(in_queue prio)"
  check "KC19 kc14c without a class (priority 0) waits" \
    eventually 30 eval 'cond_reason_is kc14c Suspended WaitingForAdmission && wl_field_is kc14c .spec.priority 0'
  k label pntj kc14c "kueue.x-k8s.io/priority-class=high-$NS" >/dev/null
  check "KC19 a WorkloadPriorityClass added to the pending kc14c: priority 1000" \
    eventually 30 wl_field_is kc14c .spec.priority 1000
  check "KC19 ... kc14c preempts kc14b" eventually 60 eval 'cond_reason_is kc14b Suspended Preempted && admitted kc14c'
  run_all kc14c 2
  k delete pntj kc14b >/dev/null
  k delete pntj kc14c --wait=false >/dev/null
  check "KC17 a running job deleted: its Workload goes (its finalizer removed)" eventually 60 has_wl kc14c 0
}
scenario KC14 kc14 "a WorkloadPriorityClass substituted after a gang restart; one added to a pending job"

kc15() {
  queued_job kc15 1 "$(in_queue elsewhere)"
  check "KC15 LocalQueue elsewhere only in another namespace: the job waits, Kueue says why, no pod" \
    eventually 30 eval '[[ $(cond kc15 QuotaReserved message) == *"LocalQueue elsewhere"* ]] && has_pods kc15 0'
  kueue_local_queue "$NS" elsewhere "cq-$NS" | ka apply -f - >/dev/null
  check "KC15 a LocalQueue elsewhere in its own namespace: admitted" admit_run kc15 1
  k delete pntj kc15 >/dev/null
}
scenario KC15 kc15 "Should unsuspend job iff localQueue is in the same namespace"


kc20() {
  queued_job kc20 4 "$(in_queue prio)"
  need "KC20 4 x 1 CPU in 2 CPU: waits" \
    eventually 30 eval 'cond_reason_is kc20 Suspended WaitingForAdmission && has_wl kc20 1' || return 1
  local uid created
  uid=$(wl kc20 .metadata.uid)
  k patch pntj kc20 --type merge -p '{"spec":{"elasticPolicy":{"minReplicas":1}}}' >/dev/null
  check "KC20 minReplicas 1 while pending: the same Workload gets minCount 1" \
    eventually 30 eval 'wl_field_is kc20 ".spec.podSets[0].minCount" 1 && wl_field_is kc20 .metadata.uid '"$uid"
  check "KC20 admitted with 2 of 4: 2 pods, status.ranks 2" \
    eval 'admit_run kc20 2 && [[ $(job_field kc20 "{.status.ranks}") == 2 ]]'
  deactivate kc20 false
  check "KC20 admission removed: no pod, the job's replicas still 4" \
    eventually 30 eval 'has_pods kc20 0 && [[ $(job_field kc20 "{.spec.replicas}") == 4 ]]'
  k delete pntj kc20 >/dev/null
  queued_job kc22 3 "$(in_queue prio)"
  need "KC22 3 x 1 CPU in 2 CPU: waits" \
    eventually 30 eval 'cond_reason_is kc22 Suspended WaitingForAdmission && has_wl kc22 1' || return 1
  uid=$(wl kc22 .metadata.uid)
  created=$(wl kc22 .metadata.creationTimestamp)
  k patch pntj kc22 --type merge -p '{"spec":{"replicas":2}}' >/dev/null
  check "KC22 replicas 3 -> 2 while pending: the same Workload (uid, creationTimestamp), count 2" \
    eventually 30 eval 'wl_field_is kc22 ".spec.podSets[0].count" 2 && wl_field_is kc22 .metadata.uid '"$uid"' && wl_field_is kc22 .metadata.creationTimestamp '"$created"
  check "KC22 admitted with 2 pods" admit_run kc22 2
  k delete pntj kc22 >/dev/null
}
scenario KC20 kc20 "partial admission enabled on a pending job; a pending job edited"

kc23() {
  queued_job kc23 1 "$(in_queue main)"
  need "KC23 runs" admit_run kc23 1 || return 1
  deactivate kc23 false
  check "KC23 deactivated: Suspended/Deactivated, no pod, reservation released" \
    eventually 30 eval 'cond_reason_is kc23 Suspended Deactivated && has_pods kc23 0 && released kc23'
}
scenario KC23 kc23 "spec.active false: the job stops and is not admitted (reactivated after KC24)"

kc30() {
  kueue_local_queue "$NS" default "cq-$NS" | ka apply -f - >/dev/null
  create_job kc30 1
  check "KC30 a new job without a queue is labelled kueue.x-k8s.io/queue-name: default (event DefaultQueue)" \
    eventually 30 eval '[[ $(job_field kc30 "{.metadata.labels.kueue\.x-k8s\.io/queue-name}") == default ]] && has_event kc30 DefaultQueue'
  check "KC30 its Workload is in queue default, and it is admitted" \
    eval 'eventually 30 wl_field_is kc30 .spec.queueName default && admit_run kc30 1'
  k delete pntj kc30 >/dev/null
  k delete localqueue default >/dev/null
}
scenario KC30 kc30 "LocalQueue defaulting"

kc11() {
  ka apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: topo-$NS}
spec: {levels: [{nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: tas-$NS, labels: {instance: tas, kubernetes.io/hostname: tas-$NS}}
---
$(flavor "tas-$NS" tas "topologyName: topo-$NS")
---
$(cq "cq-tas-$NS" "cpu, memory" "tas-$NS=cpu:4 memory:64Gi")
---
$(kueue_local_queue "$NS" tas "cq-tas-$NS")
YAML
  ka patch node "tas-$NS" --subresource=status --type merge -p '{"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"10"},"capacity":{"cpu":"4","memory":"16Gi","pods":"10"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"ready"}]}}' >/dev/null
  queued_job kc11 1 "$(in_queue tas)"
  check "KC11 admitted by topology: refused, the job Failed/FailedToStart naming the topology" \
    eventually 90 eval 'cond_reason_is kc11 Failed FailedToStart && [[ $(cond kc11 Failed message) == *topology* ]]'
  reserves_nothing() { [[ $(ka get clusterqueue "cq-tas-$NS" -o jsonpath='{.status.reservingWorkloads}') == 0 ]]; }
  check "KC11 no pod; the Workload Finished/FailedToStart, its quota freed" \
    eval 'has_pods kc11 0 && wl_is kc11 Finished True/FailedToStart && eventually 30 reserves_nothing'
  k delete pntj kc11 >/dev/null
}
scenario KC11 kc11 "topology-aware scheduling: the admission is refused"

collect
lanes() {
  check "KC25 never ready: evicted (PodsReadyTimeout) at the timeout" eventually 60 has_event kc25 PodsReadyTimeout
  check "KC28 queued again after the backoff, deactivated at the requeuing limit" \
    eventually 90 eval '[[ $(wl_cond kc25 Evicted) == True/DeactivatedDueToRequeuingLimitExceeded ]] && wl_field_is kc25 .spec.active false'
  check "KC28 the job waits Suspended with that reason, no pod, its reservation released" \
    eventually 30 eval 'cond_reason_is kc25 Suspended DeactivatedDueToRequeuingLimitExceeded && has_pods kc25 0 && released kc25'
  after_timeout() {
    (($(date +%s) > $(date -d "$(wl kc27 '.status.conditions[] | select(.type == "Admitted") | .lastTransitionTime')" +%s) + PODS_READY_S))
  }
  need "KC27 kc27 has run longer than the timeout since its admission, PodsReady True/Started" \
    eval 'after_timeout && wl_is kc27 PodsReady True/Started && admitted kc27' || return 1
  fail_pod kc27-rank-0 1 Error
  check "KC27 its rank fails: PodsReady False/WaitForRecovery (timed by recoveryTimeout, not the timeout)" \
    eventually 30 wl_is kc27 PodsReady False/WaitForRecovery
  check "KC27 the gang restarts within recoveryTimeout: PodsReady True/Recovered" \
    eval 'eventually 30 eval "has_pods kc27 1 && generation_is kc27-rank-0 1" && run_all kc27 1 && eventually 30 wl_is kc27 PodsReady True/Recovered'
  check "KC27 ... never evicted, still admitted, status.restarts 1" \
    eval '! has_event kc27 PodsReadyTimeout && admitted kc27 && restarts_is kc27 1'
  check "KC29 admitted, then deactivated at its maximum execution time: Suspended, no pod, released" \
    eventually 60 eval 'has_event kc29 Admitted && cond_reason_is kc29 Suspended DeactivatedDueToMaximumExecutionTimeExceeded &&
      has_pods kc29 0 && released kc29 && wl_field_is kc29 .spec.active false'
  k delete pntj kc25 kc27 kc29 >/dev/null
}
scenario KC25 lanes "never ready: timeout, requeue, requeuing limit; a failure long after the start (KC27); the maximum execution time (KC29)"

# ---- the operator with Kueue's default configuration (no --kueue-config) ----------------------------
stop_operator
start_operator --kueue
kc03() {
  create_job kc03 1
  check "KC03 no queue (manageJobsWithoutQueueName false): the job runs, its pod" eventually 30 has_pods kc03 1
  check "KC03 ... and has no Workload" has_wl kc03 0
  k label pntj kc03 kueue.x-k8s.io/queue-name=main >/dev/null
  check "KC03 labelled: a Workload in queue main, the pod stopped until it is admitted" \
    eventually 30 eval 'has_wl kc03 1 && wl_field_is kc03 .spec.queueName main'
  check "KC03 ... admitted, its pod runs" admit_run kc03 1
  k delete pntj kc03 >/dev/null
  check "KC24 after the operator's restart kc23's Workload is still inactive, the job Suspended, no pod" \
    eventually 30 eval 'wl_field_is kc23 .spec.active false && cond_reason_is kc23 Suspended Deactivated && has_pods kc23 0 && ! admitted kc23'
  deactivate kc23 true
  check "KC23 active again: admitted, its pod runs" admit_run kc23 1
  k delete pntj kc23 >/dev/null
}
scenario KC03 kc03 "jobs reconciled only when the queue is set; a deactivated Workload across a restart"

checks_done
checks_finish 0
