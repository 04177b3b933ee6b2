# shellcheck shell=bash
# e2e scenario 12 (sourced by e2e_test.sh, whose helpers it uses): Kueue v0.17 (kueue-up.sh, a host
# process next to the node's API server, with waitForPodsReady on as production clusters run it:
# timeout 30 s, recoveryTimeout 180 s, a requeuing strategy with a backoffLimitCount) admits,
# preempts and resumes PetNameTrainingJobs that really train on the node. One ClusterQueue with 1 CPU (two LocalQueues, q-a and q-b), rank pods
# of 500m, so one 2-rank job fits:
#  - kq-low (q-a, priority low) is admitted and trains; kq-wait (q-b, 4 replicas, minReplicas 2)
#    waits with no pod;
#  - kq-high (q-a, priority high) preempts kq-low after its first checkpoint: kq-low's ranks get
#    SIGTERM, rank 0 logs "stopping on SIGTERM after step S" and its newest checkpoint holds step S;
#    the pods go, kq-low waits (Suspended, reason Preempted), restarts stay 0;
#  - kq-high Succeeds, kq-low is admitted again and rank 0 logs "resuming from ... step S)"; it
#    Succeeds with its final checkpoint at 2 x EPOCHS x (steps of epoch 1): no step lost or trained
#    twice; restarts 0 (the preemption is not a failure);
#  - kq-wait is then admitted with 2 of its 4 replicas (partial admission): 2 pods, world size 2;
#    kq-queued waits for the quota (its Workload, no pod);
#  - kq-wait's rank 1 is killed after the pods-ready timeout has passed since its admission: its
#    Workload says PodsReady False/WaitForRecovery, it is never evicted, and the job restarts
#    (restarts 1), resumes from its checkpoint and Succeeds; its finished Workload frees the quota;
#  - kq-queued is admitted then and runs; after its first checkpoint its replicas are edited from 2
#    to 1: it stops, its Workload is replaced by one of 1 pod, it is admitted again and its one rank
#    resumes from the checkpoint (restarts 0);
#  - kq-next (2 replicas) waits for the quota; kq-queued's Workload deleted by hand: kq-queued
#    stops, its Workload stays Terminating and kq-next is not admitted while a pod kq-queued had
#    is left; deleting kq-queued (with its new Workload) then lets kq-next run;
#  - deleting kq-queued, kq-next (running) and kq-wait (finished) leaves no Workload and no pod.
# What the API server shows alone (relabels, admission checks' podSetUpdates, a suspended job
# preempted, the Kueue cases of operator_kueue_conformance) is not repeated here.
# The jobs that are struck mid-training (kq-low preempted, kq-wait's rank killed past the timeout,
# kq-queued resized and its Workload deleted) are held (their rank containers paused, e2e_test.sh's
# hold) from a checkpoint until the blow has landed, so that none of them can finish first however
# fast the machine trains.
# Timings for docs/performance.md: admission to all ranks running, and eviction to no rank pod.

# shellcheck source-path=SCRIPTDIR source=../support/kueue.sh
source "$ROOT/tests/support/kueue.sh"
# shellcheck source-path=SCRIPTDIR source=kueue_edits.sh
source "$ROOT/tests/e2e/kueue_edits.sh"
KQ_WPC_LOW=e2e-low KQ_WPC_HIGH=e2e-high KQ_CQ=e2e-cq KQ_RF=e2e-flavor
KQ_CQ_CHECKED=e2e-cq-checked KQ_CHECK=e2e-check
KQ_PODS_READY_TIMEOUT=30

# kq_claim NAME: NAME's claim, bound. Claims are bound before their jobs exist, as on a cluster
# whose claims outlive their jobs, so that the timings below hold no wait for the PV controller's
# binding (which can take its 15 s resync on a busy machine).
kq_claim() {
  storage "$1"
  eventually 60 kq_claim_bound "$1-ckpt" || not_ok "claim $1-ckpt Bound"
}
# kq_job NAME QUEUE PRIORITY REPLICAS EPOCHS [SPEC_LINE]: a job of REPLICAS x 500m on its own claim
# (kq_claim's, made here unless it is bound already)
kq_job() {
  kq_claim_bound "$1-ckpt" 2>/dev/null || kq_claim "$1"
  kn apply -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: $2, kueue.x-k8s.io/priority-class: $3}
spec:
  replicas: $4
  image: $TRAINER_IMAGE
  imagePullPolicy: Never
  resources: {cpu: 500m}
  dataset:
    path: /data/pets.csv
    maxNames: $MAX_NAMES
    volume: {hostPath: "$WORK/data"}
  training: {epochs: $5, batchSizePerReplica: $BATCH, threads: 1}
  checkpoint: {claimName: $1-ckpt, everyEpochs: 1, keep: 1000}
${6:-}
YAML
}
# kueue_running: Kueue started by kueue-up.sh for this cluster is alive
kueue_running() { [[ -f $CLUSTER/kueue.pid ]] && kill -0 "$(cat "$CLUSTER/kueue.pid")" 2>/dev/null; }
kq_claim_bound() { [[ $(kn get pvc "$1" -o jsonpath='{.status.phase}') == Bound ]]; }
kq_cond() { job_field "$1" "{.status.conditions[?(@.type==\"$2\")].$3}"; }
kq_admitted() { [[ $(kq_cond "$1" Admitted status) == True ]]; }
kq_waiting() { [[ $(job_field "$1" '{.status.phase}') == Suspended && $(kq_cond "$1" Suspended reason) == "$2" ]]; }
kq_pods() { kn get pods -l "petname.dev/job-name=$1" -o name | wc -l; }
kq_no_pods() { (($(kq_pods "$1") == 0)); }
kq_workloads() { kn get workloads -l "petname.dev/job-name=$1" -o name | wc -l; }
kq_no_workload() { (($(kq_workloads "$1") == 0)); }
kq_now() { date +%s.%N; }
# kq_latest_step JOB: the step in the manifest of JOB's newest checkpoint
kq_latest_step() {
  local latest
  latest=$(cat "$(ckpt_dir "$1")/latest" 2>/dev/null) || return 1
  jq -r .step "$(ckpt_dir "$1")/$latest/manifest.json"
}
# kq_wait_time SECONDS CMD...: polls CMD every 0.2 s; prints the seconds it took (fails on timeout)
kq_wait_time() {
  local deadline=$((SECONDS + $1)) start
  shift
  start=$(kq_now)
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
  awk -v a="$(kq_now)" -v b="$start" 'BEGIN { printf "%.1f\n", a - b }'
}

kq_cleanup() {
  kn delete pntj kq-low kq-high kq-wait kq-queued kq-next kq-sus kq-top kq-checked --ignore-not-found --wait=false >/dev/null 2>&1 || true
  kn delete localqueue q-a q-b q-c --ignore-not-found >/dev/null 2>&1 || true
  k delete clusterqueue "$KQ_CQ" "$KQ_CQ_CHECKED" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  k delete admissioncheck "$KQ_CHECK" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  k delete resourceflavor "$KQ_RF" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  k delete workloadpriorityclass "$KQ_WPC_LOW" "$KQ_WPC_HIGH" --ignore-not-found >/dev/null 2>&1 || true
  "$HELM" --kubeconfig "$CLUSTER/kubeconfig" upgrade petname "$ROOT/charts/petname-operator" -n "$OP_NS" \
    --reuse-values --set kueue.enabled=false --wait >/dev/null 2>&1 || true
  eventually 120 operator_ready || true
}

scenario_12() {
  local t0=$SECONDS
  checks_plan 59
  log "scenario 12: Kueue admits, preempts and resumes jobs"
  step "Kueue $KUEUE_VERSION started next to the node's API server, waitForPodsReady on (kueue-up.sh)" 600 \
    env PETNAME_KUEUE_WAIT_FOR_PODS_READY="${KQ_PODS_READY_TIMEOUT}s 180s" \
    "$ROOT/tests/cluster/kueue-up.sh" "$CLUSTER" || return 0
  step "helm upgrade --set kueue.enabled=true (the operator runs with --kueue)" 180 \
    "$HELM" --kubeconfig "$CLUSTER/kubeconfig" upgrade petname "$ROOT/charts/petname-operator" \
    -n "$OP_NS" --reuse-values --set kueue.enabled=true --wait || return 0
  with_kueue() { k -n "$OP_NS" get deploy -o json | grep -q -- '"--kueue"'; }
  check "the operator's Deployment passes --kueue" with_kueue
  # Only the new operator: a terminating one without --kueue would still start a queued job's pods.
  only_kueue_operator() {
    k -n "$OP_NS" get pods -l app.kubernetes.io/name=petname-operator -o json |
      jq -e '(.items | length) == 1 and (.items[0].spec.containers[0].args | index("--kueue") != null)'
  }
  step "the operator without --kueue is gone, the one with it runs" 120 only_kueue_operator || return 0
  step "operator Ready" 120 operator_ready || return 0
  kq_scenario
  kq_cleanup
  SCENARIO_SECONDS[12-kueue]=$((SECONDS - t0))
}

kq_scenario() {
  setup "ResourceFlavor, ClusterQueue (1 CPU), LocalQueues q-a and q-b, WorkloadPriorityClasses" \
    k apply -f - <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: $KQ_RF}
---
$(kueue_cluster_queue "$KQ_CQ" "$KQ_RF" 1 LowerPriority)
---
$(kueue_priority_class "$KQ_WPC_LOW" 10)
---
$(kueue_priority_class "$KQ_WPC_HIGH" 1000)
---
$(kueue_local_queue "$NS" q-a "$KQ_CQ")
---
$(kueue_local_queue "$NS" q-b "$KQ_CQ")
YAML

  # kq-high preempts kq-low after kq-low's first checkpoint: its claim is bound beforehand (and
  # kq-next's, which comes while kq-queued trains). kq-low is held from that checkpoint until its
  # ranks have the kubelet's SIGTERM pending, so that the preemption lands mid-training.
  local low_epochs=$((2 * EPOCHS))
  kq_claim kq-high
  kq_claim kq-next
  kq_job kq-low q-a "$KQ_WPC_LOW" 2 "$low_epochs"
  local admit_run
  step "kq-low admitted" 60 kq_admitted kq-low || return 0
  admit_run=$(kq_wait_time 180 phase_is kq-low Running) || { stop "kq-low: all ranks running"; return 0; }
  ok "kq-low: admission to all ranks running in ${admit_run} s"
  # kq-wait trains half as long again as kq-low, so that it still holds the quota when kq-queued
  # comes and still trains when the pods-ready timeout has passed since its admission.
  kq_job kq-wait q-b "$KQ_WPC_LOW" 4 $((3 * EPOCHS)) "  elasticPolicy: {minReplicas: 2}"
  step "kq-wait (q-b, same ClusterQueue, no quota left) waits: Suspended, WaitingForAdmission" 60 \
    kq_waiting kq-wait WaitingForAdmission || return 0
  step "kq-low's first checkpoint written, its ranks held" 240 held_at kq-low 1 || return 0
  check "kq-wait has no pod while kq-low trains" kq_no_pods kq-wait
  local per_epoch
  per_epoch=$(jq -r .step "$(ckpt_dir kq-low)/epoch-000001/manifest.json")
  kn logs -f kq-low-rank-0 >"$WORK/logs-kq-low-rank-0-before.log" 2>&1 &
  local follower=$!

  kq_job kq-high q-a "$KQ_WPC_HIGH" 2 1
  local evicted gone
  evicted=$(kq_now)
  step "kq-low's held ranks got the kubelet's SIGTERM (kq-high preempts it)" 120 term_pending kq-low ||
    { release kq-low; kill "$follower" 2>/dev/null || true; return 0; }
  release kq-low
  step "kq-low preempted by kq-high: Suspended, reason Preempted" 120 kq_waiting kq-low Preempted ||
    { kill "$follower" 2>/dev/null || true; return 0; }
  gone=$(kq_wait_time 120 kq_no_pods kq-low) || { stop "kq-low's rank pods gone"; return 0; }
  ok "kq-low: eviction to no rank pod in ${gone} s (kq-high created $(awk -v a="$(kq_now)" -v b="$evicted" 'BEGIN { printf "%.1f", a - b }') s before)"
  wait "$follower" 2>/dev/null || true
  local stopped saved
  stopped=$(sed -n 's/.*stopping on SIGTERM after step \([0-9]*\).*/\1/p' "$WORK/logs-kq-low-rank-0-before.log" | tail -n 1)
  saved=$(kq_latest_step kq-low || true)
  check "kq-low's rank 0 stopped on SIGTERM at step ${stopped:-?} (mid-training, after epoch 1's step $per_epoch)" \
    test -n "$stopped" -a "${stopped:-0}" -gt "$per_epoch"
  check "kq-low's newest checkpoint holds that step ($saved)" test "$saved" = "${stopped:-none}"
  check "kq-low's preemption is not a restart (status.restarts 0)" test "$(job_field kq-low '{.status.restarts}')" = 0
  check "kq-low's Workload released its reservation (Requeued True/Preempted)" eventually 30 kq_workload_requeued kq-low

  step "kq-high admitted and Succeeded" 300 phase_is kq-high Succeeded || return 0
  local readmit_run
  step "kq-low admitted again (before kq-wait: same priority, created first)" 120 kq_admitted kq-low || return 0
  readmit_run=$(kq_wait_time 180 phase_is kq-low Running) || { stop "kq-low running again"; return 0; }
  ok "kq-low: re-admission to all ranks running in ${readmit_run} s"
  check "kq-wait still has no pod" kq_no_pods kq-wait
  step "kq-low Succeeded after its resume" 360 phase_is kq-low Succeeded || { save_logs kq-low; return 0; }
  save_logs kq-low
  local resumed final
  resumed=$(sed -n 's/.*resuming from .*step \([0-9]*\)).*/\1/p' "$WORK/logs/kq-low-rank-0.log" | head -n 1)
  check "kq-low's rank 0 resumed from step ${resumed:-?}, the step it stopped at" test "${resumed:-none}" = "${stopped:-x}"
  final=$(jq -r .step "$(ckpt_dir kq-low)/epoch-$(printf '%06d' "$low_epochs")/manifest.json" 2>/dev/null || true)
  check "kq-low trained every step once: final step $final = $low_epochs epochs x $per_epoch" \
    test "${final:-0}" = $((low_epochs * per_epoch))
  check "kq-low's restarts still 0" test "$(job_field kq-low '{.status.restarts}')" = 0

  step "kq-wait admitted with 2 of its 4 replicas (partial admission)" 120 kq_admitted kq-wait || return 0
  two_running() { (($(kn get pods -l petname.dev/job-name=kq-wait --field-selector=status.phase=Running -o name | wc -l) == 2)); }
  step "kq-wait runs 2 rank pods" 120 two_running || return 0
  check "kq-wait has exactly 2 pods and world size 2" test "$(kq_pods kq-wait)/$(job_field kq-wait '{.status.ranks}')" = 2/2
  kq_job kq-queued q-b "$KQ_WPC_LOW" 2 "$low_epochs"
  step "kq-queued waits (its Workload exists, no pod)" 60 kq_waiting kq-queued WaitingForAdmission || return 0
  # The job says WaitingForAdmission in the pass that creates its Workload: polled, not read once.
  one_workload() { (($(kq_workloads "$1") == 1)); }
  check "kq-queued has a Workload" eventually 30 one_workload kq-queued
  kq_recovery kq-wait
  if ((STOP)); then return 0; fi
  step "kq-queued admitted once kq-wait finished, and running" 180 phase_is kq-queued Running || return 0
  kq_resize kq-queued
  if ((STOP)); then return 0; fi
  kq_job kq-next q-b "$KQ_WPC_LOW" 2 "$low_epochs"
  step "kq-next (2 x 500m) waits while kq-queued holds 500m of the 1 CPU" 60 kq_waiting kq-next WaitingForAdmission || return 0
  kq_workload_deleted kq-queued kq-next
  if ((STOP)); then return 0; fi
  kn delete pntj kq-queued --wait=false >/dev/null
  check "deleting kq-queued (its new Workload queued or admitted) leaves no Workload" eventually 60 kq_no_workload kq-queued
  check "deleting kq-queued leaves no pod" eventually 120 kq_no_pods kq-queued
  step "kq-next admitted and running" 180 phase_is kq-next Running || return 0
  kn delete pntj kq-next kq-wait --wait=false >/dev/null
  check "deleting running kq-next leaves no Workload" eventually 60 kq_no_workload kq-next
  check "deleting running kq-next leaves no pod" eventually 120 kq_no_pods kq-next
  check "deleting finished kq-wait leaves no Workload" eventually 60 kq_no_workload kq-wait
  check "deleting finished kq-wait leaves no pod" eventually 120 kq_no_pods kq-wait
  printf 'kueue admission_to_running_s %s readmission_to_running_s %s eviction_to_no_pod_s %s\n' \
    "$admit_run" "$readmit_run" "$gone" >>"$WORK/kueue-timings.txt"
}
kq_workload_requeued() {
  [[ $(kn get workloads -l petname.dev/job-name="$1" -o json |
    jq -r '.items[0].status.conditions[]? | select(.type == "Requeued") | .status + "/" + .reason') == True/Preempted ]]
}

# kq_past_timeout JOB: the pods-ready timeout has passed since JOB's admission, and JOB has a checkpoint
kq_past_timeout() {
  local admitted
  admitted=$(date -d "$(kq_cond "$1" Admitted lastTransitionTime)" +%s) || return 1
  (($(date +%s) - admitted > KQ_PODS_READY_TIMEOUT)) && checkpointed "$1"
}
kq_not_evicted() {
  ! grep -q '/True$' "$WORK/$1-workload.txt" && [[ $(kq_cond "$1" Suspended status)/$(kq_cond "$1" Suspended reason) == False/Admitted ]]
}
# kq_recovery JOB: JOB (running, admitted) loses rank 1 after the pods-ready timeout; Kueue's
# waitForPodsReady must not evict it (Kueue times WaitForRecovery by recoveryTimeout only)
kq_recovery() {
  local job=$1 wl id at watcher
  # Held from a checkpoint until past the timeout: it cannot finish before its rank is killed.
  step "$job's checkpoint written, its ranks held" 240 held_at "$job" 1 || return 0
  step "$job held past the pods-ready timeout (${KQ_PODS_READY_TIMEOUT} s) since its admission" 180 \
    kq_past_timeout "$job" || { release "$job"; return 0; }
  wl=$(kn get workloads -l "petname.dev/job-name=$job" -o jsonpath='{.items[0].metadata.name}')
  # Every change of the Workload: PodsReady's reason / Evicted's status
  kn get workload "$wl" -w \
    -o jsonpath='{.status.conditions[?(@.type=="PodsReady")].reason}/{.status.conditions[?(@.type=="Evicted")].status}{"\n"}' \
    >"$WORK/$job-workload.txt" 2>&1 &
  watcher=$!
  id=$(kn get pod "$job-rank-1" -o jsonpath='{.status.containerStatuses[0].containerID}')
  at=$(latest_epoch "$job")
  if ((at >= 3 * EPOCHS)) || ! "${CTR[@]}" tasks kill -s SIGKILL "${id#containerd://}" >>"$CHECKS_LOG" 2>&1; then
    release "$job"
    kill "$watcher" 2>/dev/null || true
    stop "$job: killed rank 1 (container ${id:-none}) mid-training, after epoch $at"
    return 0
  fi
  release "$job"
  ok "$job: killed rank 1's container (SIGKILL, the ranks held) after epoch $at, past the pods-ready timeout"
  step "$job Succeeded after the gang restart" 300 phase_is "$job" Succeeded || { kill "$watcher" 2>/dev/null || true; save_logs "$job"; return 0; }
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  save_logs "$job"
  check "$job's Workload said PodsReady False/WaitForRecovery while it restarted" \
    grep -q '^WaitForRecovery/' "$WORK/$job-workload.txt"
  check "$job was never evicted (no Evicted True on its Workload; Suspended False, reason Admitted)" \
    kq_not_evicted "$job"
  check_resumed_after_restart "$job" "$at"
}
