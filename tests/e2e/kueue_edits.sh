# shellcheck shell=bash
# Scenario 12's steps on jobs that are edited or whose Workload is (sourced by kueue_scenario.sh,
# whose helpers and objects they use): a running job resized, a Workload deleted by hand, a
# suspended job preempted after a relabelled priority, and a job relabelled into a queue with an
# AdmissionCheck whose podSetUpdates reach its pod. A job is held (its rank containers paused,
# e2e_test.sh's hold) from before it is edited until the kubelet's SIGTERM is pending in its ranks,
# so that the edit lands while it trains, however fast the machine is.

# kq_workload_deleted JOB NEXT: JOB (running) has its Workload deleted by hand while NEXT waits for
# the quota JOB holds: while a pod JOB had then still holds node resources (neither Succeeded nor
# Failed: the operator's condition for removing Kueue's finalizer, workload_finalizer.h) the
# Workload stays (Terminating) and NEXT is not admitted. The ranks stop within about a second, so
# few looks see such a pod; the operator_kueue test holds one for long. (JOB then gets a new
# Workload; it or NEXT is admitted next.)
kq_workload_deleted() {
  local job=$1 next=$2 wl pods left early=0 vanished=0 looks=0 held=0 admitted missing
  local deadline=$((SECONDS + 120))
  step "$job's rank held while it trains" 60 hold "$job" 1 || return 0
  wl=$(kq_workload_of "$job" .metadata.name)
  pods=$(kn get pods -l "petname.dev/job-name=$job" -o jsonpath='{.items[*].metadata.uid}')
  old_pods() {  # "held" while one of the pods of $pods holds resources, "left" while one is there
    kn get pods -l "petname.dev/job-name=$job" \
      -o jsonpath='{range .items[*]}{.metadata.uid} {.status.phase}{"\n"}{end}' |
      awk -v old="$pods" 'BEGIN { n = split(old, u, " "); for (i = 1; i <= n; i++) o[u[i]] = 1 }
        $1 in o { s = "left"; if ($2 != "Succeeded" && $2 != "Failed") { print "held"; exit } }
        END { if (s != "") print s }' | head -n 1
  }
  stopped_event() {
    [[ -n $(kn get events --field-selector "involvedObject.name=$job,reason=WorkloadDeleted" -o name) ]]
  }
  kn delete workload "$wl" --wait=false >/dev/null
  release "$job"
  # From the deletion on (the ranks take seconds to stop): NEXT's admission and the Workload
  # read first, so that both were seen while an old pod still held resources.
  while :; do
    admitted=0 missing=0
    kq_admitted "$next" && admitted=1
    kn get workload "$wl" >/dev/null 2>&1 || missing=1
    left=$(old_pods)
    [[ -n $left ]] || break
    looks=$((looks + 1))
    if [[ $left == held ]]; then
      held=$((held + 1))
      ((admitted)) && early=1
      ((missing)) && vanished=1
    fi
    if ((SECONDS >= deadline)); then
      kn get pods,workloads -o wide >>"$CHECKS_LOG" 2>&1
      stop "$job's pods gone"
      return 0
    fi
    sleep 0.2
  done
  check "$job's Workload deleted by hand: $job stops (event WorkloadDeleted)" eventually 30 stopped_event
  check "$job's pods of the deleted Workload's admission are gone, after $looks looks that found one left ($held of them one holding resources)" \
    test "$looks" -gt 0
  check "$next was not admitted while one of them held resources" test "$early" = 0
  check "$job's deleted Workload stayed (Terminating) while one of them held resources" test "$vanished" = 0
}

kq_workload_uid() { kn get workloads -l "petname.dev/job-name=$1" -o jsonpath='{.items[0].metadata.uid}'; }
# kq_resize JOB: JOB (2 ranks, running) edited to 1 replica after its first checkpoint: Kueue's
# quota was reserved for 2, so its Workload is replaced; it is admitted again and resumes on 1 rank
kq_resize() {
  local job=$1 old
  step "$job's first checkpoint written, its ranks held" 240 held_at "$job" 1 || return 0
  old=$(kq_workload_uid "$job")
  kn patch pntj "$job" --type merge -p '{"spec":{"replicas":1}}' >/dev/null
  step "$job's held ranks got the kubelet's SIGTERM (the edit stops them)" 120 term_pending "$job" ||
    { release "$job"; return 0; }
  release "$job"
  replaced() {
    local uid
    uid=$(kq_workload_uid "$1")
    [[ -n $uid && $uid != "$old" ]] &&
      [[ $(kn get workloads -l "petname.dev/job-name=$1" -o jsonpath='{.items[0].spec.podSets[0].count}') == 1 ]]
  }
  step "$job edited to 1 replica: its Workload replaced by one of 1 pod" 120 replaced "$job" || return 0
  one_rank() { phase_is "$1" Running && (($(kq_pods "$1") == 1)) && [[ $(job_field "$1" '{.status.ranks}') == 1 ]]; }
  step "$job admitted again and running on 1 rank" 180 one_rank "$job" || return 0
  resumed_on_one() { kn logs "$1-rank-0" 2>/dev/null | grep -q 'resuming from'; }
  check "$job's rank 0 resumed from its checkpoint on the new world size" eventually 120 resumed_on_one "$job"
  check "$job's resize is not a restart (status.restarts 0)" test "$(job_field "$job" '{.status.restarts}')" = 0
}

kq_reserved() { [[ $(kq_workload_of "$1" '.status.conditions[]? | select(.type == "QuotaReserved") | .status') == True ]]; }
kq_released() { ! kq_reserved "$1"; }
kq_priority_is() { [[ $(kq_workload_of "$1" .spec.priority) == "$2" ]]; }
# kq_suspended_preempted: a job suspended while admitted gives its quota back when Kueue preempts
# it, here for a job whose priority class was changed by relabelling
kq_suspended_preempted() {
  local released
  # Suspended once running: its Workload's PodsReady is then WaitForRecovery (recoveryTimeout
  # 180 s), not WaitForStart, so that waitForPodsReady does not evict it first.
  kq_job kq-sus q-a "$KQ_WPC_LOW" 2 $((2 * EPOCHS))
  step "kq-sus admitted and running" 180 phase_is kq-sus Running || return 0
  step "kq-sus's ranks held while they train" 60 hold kq-sus 2 || return 0
  kn patch pntj kq-sus --type merge -p '{"spec":{"runPolicy":{"suspend":true}}}' >/dev/null
  step "kq-sus's held ranks got the kubelet's SIGTERM (the suspension stops them)" 120 term_pending kq-sus ||
    { release kq-sus; return 0; }
  release kq-sus
  suspended_holding() { kq_no_pods kq-sus && kq_reserved kq-sus; }
  step "kq-sus suspended (spec.runPolicy.suspend): no pod, its reservation kept" 120 suspended_holding || return 0
  kq_job kq-top q-a "$KQ_WPC_LOW" 1 1
  step "kq-top (same priority as kq-sus) waits" 60 kq_waiting kq-top WaitingForAdmission || return 0
  check "kq-sus still holds its reservation" kq_reserved kq-sus
  kn label pntj kq-top "kueue.x-k8s.io/priority-class=$KQ_WPC_HIGH" --overwrite >/dev/null
  step "kq-top relabelled to $KQ_WPC_HIGH: its Workload's priority 1000" 60 kq_priority_is kq-top 1000 || return 0
  released=$(kq_wait_time 60 kq_released kq-sus) || { stop "kq-sus (preempted while suspended) released its reservation"; return 0; }
  ok "kq-sus (preempted while suspended) released its reservation ${released} s after kq-top's Workload had priority 1000"
  step "kq-top admitted and Succeeded" 300 phase_is kq-top Succeeded || { save_logs kq-top; return 0; }
  kn delete pntj kq-sus kq-top --wait=false >/dev/null
  check "deleting kq-sus and kq-top leaves no Workload" eventually 60 eval 'kq_no_workload kq-sus && kq_no_workload kq-top'
}

kq_workload_of() { kn get workloads -l "petname.dev/job-name=$1" -o json | jq -r ".items[0]$2 // empty"; }
# kq_checked: relabelling a job's queue takes effect, and an admission check's podSetUpdates reach
# the rank pod on the node
kq_checked() {
  local node stamp
  node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
  setup "AdmissionCheck, ClusterQueue $KQ_CQ_CHECKED, LocalQueue q-c" k apply -f - <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: $KQ_CHECK}
spec: {controllerName: petname.dev/e2e-provisioner}
---
$(kueue_cluster_queue "$KQ_CQ_CHECKED" "$KQ_RF" 1)
  admissionChecksStrategy: {admissionChecks: [{name: $KQ_CHECK}]}
---
$(kueue_local_queue "$NS" q-c "$KQ_CQ_CHECKED")
YAML
  stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch admissioncheck "$KQ_CHECK" --subresource=status --type merge -p \
    "{\"status\":{\"conditions\":[{\"type\":\"Active\",\"status\":\"True\",\"reason\":\"Active\",\"message\":\"e2e\",\"lastTransitionTime\":\"$stamp\"}]}}" >/dev/null
  kq_job kq-checked q-typo "$KQ_WPC_LOW" 1 1
  step "kq-checked (queue q-typo: no such LocalQueue) waits" 60 kq_waiting kq-checked WaitingForAdmission || return 0
  check "kq-checked has no pod while its queue does not exist" kq_no_pods kq-checked
  kn label pntj kq-checked kueue.x-k8s.io/queue-name=q-c --overwrite >/dev/null
  moved() {
    [[ $(kq_workload_of kq-checked .spec.queueName) == q-c &&
      $(kq_workload_of kq-checked '.status.admissionChecks[0].state') == Pending ]]
  }
  step "kq-checked relabelled to q-c: its Workload moved there, quota reserved, the check Pending" 60 moved || return 0
  check "kq-checked has no pod before its admission check is Ready" kq_no_pods kq-checked
  stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  kn patch workload "$(kq_workload_of kq-checked .metadata.name)" --subresource=status --type merge -p \
    "$(jq -cn --arg c "$KQ_CHECK" --arg t "$stamp" --arg node "$node" '{status: {admissionChecks: [{name: $c,
      state: "Ready", message: "provisioned", lastTransitionTime: $t, podSetUpdates: [{name: "ranks",
      labels: {"e2e.petname.test/provisioned": "true"}, nodeSelector: {"kubernetes.io/hostname": $node}}]}]}}')" >/dev/null
  provisioned_pod() {
    kn get pod kq-checked-rank-0 -o json | jq -e --arg node "$node" '
      .metadata.labels["e2e.petname.test/provisioned"] == "true" and
      .spec.nodeSelector["kubernetes.io/hostname"] == $node and .spec.nodeName == $node' >/dev/null
  }
  step "kq-checked's rank pod carries the check's label and nodeSelector, on node $node" 120 provisioned_pod || return 0
  step "kq-checked Succeeded" 300 phase_is kq-checked Succeeded || { save_logs kq-checked; return 0; }
  kn delete pntj kq-checked --wait=false >/dev/null
  check "deleting kq-checked leaves no Workload" eventually 60 kq_no_workload kq-checked
}
