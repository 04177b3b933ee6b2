#!/usr/bin/env bash
# End to end on a real single-node cluster (tests/cluster/node-up.sh: kubelet + containerd + runc,
# CNI bridge, kube-proxy, CoreDNS): the operator chart and PetNameTrainingJobs in real pods.
#   1. `helm install` charts/petname-operator (the operator runs in a pod and reaches the API server
#      through the kubernetes Service), `helm test` (the chart's test Pod gets 200 from /healthz and
#      /readyz through the operator's Service), a 2-rank CPU job on a small subset of the data: pods run,
#      rank 1 finds rank 0 by DNS (J-rank-0.J.<ns>.svc) over the pod network, the job Succeeds,
#      checkpoints are on the volume (a hostPath PersistentVolume), `petname generate` on the host
#      prints names from them, status.progress was filled while running, and a Prometheus on the
#      host scraped both ranks through their pod IPs (file_sd targets read from the API: Debian's
#      Prometheus has no kubernetes_sd_configs).
#   2. rank 1's container is killed (SIGKILL through containerd) after the first checkpoint: the
#      operator restarts the gang, rank 0 resumes from the latest checkpoint (epoch > 0), the job
#      Succeeds with status.restarts = 1 and every epoch trained once after the resumed one; the
#      Restarting event names rank 1's log of attempt 0, and `petname logs` reads it on the claim.
#   3. the operator pod is deleted (grace 0) mid-training: the Deployment brings a new one, the
#      rank pods are the same ones (no duplicates, no restart), the job Succeeds.
#   4. a job is deleted: its pods and Service are garbage-collected.
#   5. a job of 2 pods x 2 processes (processesPerReplica: 2, tests/e2e/procs_scenario.sh): each pod
#      runs 2 rank processes, the 4 ranks rendezvous (world size 4 in the checkpoint), Prometheus
#      scraped the 4 local ranks' metrics ports; one local rank process of pod 1 is killed: the
#      gang restarts, resumes from the checkpoint and Succeeds.
#   6. the node's containerd, then its kubelet, are restarted mid-training
#      (tests/e2e/node_restart_scenario.sh): the rank containers keep running, the job Succeeds
#      with the same two pods and no gang restart, the node is Ready again.
#   7. a PetNameTrainingSweep, a 2 x 2 grid of 1-rank trials, 2 at a time
#      (tests/e2e/sweep_scenario.sh): never more than 2 trials run, the sweep Succeeds with a best
#      trial and times to goal, `petname report --sweep` renders it from the checkpoint volume, and
#      deleting the sweep deletes its trials.
#   8. rank 0's container is killed after its second checkpoint and the newest checkpoint damaged
#      as a writer killed mid-save leaves it (tests/e2e/checkpoint_scenario.sh): the restarted
#      rank 0 skips it with a message, resumes from the one before, and the job Succeeds.
#   9. two jobs on one claim without checkpoint.subPath (tests/e2e/shared_claim_scenario.sh):
#      both Succeed, each with its checkpoints (recording it as their owner) in its own directory
#      of the claim; a third job pointed at one of them is refused with a message naming both
#      jobs and leaves those checkpoints as they were. The claims are deploy/local-cluster's
#      (ReadWriteOnce, bound to volumes that offer ReadWriteOnce only, as a one-node cluster's
#      local-path storage does): the jobs read their data from petname-data and write their
#      checkpoints to petname-checkpoints, both ranks of each job on the two claims at once.
#  10. data and pods that cannot start (tests/e2e/start_scenario.sh): a job whose data comes from
#      a URL (an HTTP server on the node's address) with its sha256 Succeeds; one with a wrong
#      sha256 Fails with a reason naming the checksum; a wrong image name shows ErrImagePull or
#      ImagePullBackOff in a condition and then Fails; a request no node can hold shows
#      Unschedulable and does not fail; a job without a claim warns that its checkpoints die
#      with its pods.
#  11. the quick start (tests/e2e/doc_scenario.sh): the cluster commands of README.md and
#      docs/**/*.md marked `<!-- doc-test N -->`, run verbatim in order: helm install, data
#      by gzip ConfigMap and by claim, the examples the node can run to Succeeded (the GPU ones
#      as a server-side dry run), names and the model copied off the cluster, uninstall. Runs
#      last: it replaces scenario 1's release and its uninstall removes the CRDs.
#  12. Kueue (tests/e2e/kueue_scenario.sh and kueue_edits.sh, run before 11): Kueue v0.17 next to
#      the API server with waitForPodsReady, the chart with kueue.enabled; a job waits for quota
#      with no pod; a higher-priority job preempts a training one, which checkpoints at the step it
#      stopped, waits, is admitted again, resumes from that step and Succeeds with every step
#      trained once and no restart counted; partial admission runs a 4-replica job with
#      minReplicas 2 at 2; a rank killed past the pods-ready timeout is a recovery, not an
#      eviction; edits (replicas, a Workload deleted by hand, a priority class and a queue
#      relabelled, a suspended job preempted) and an AdmissionCheck's podSetUpdates; deleting
#      queued, running and finished jobs leaves no Workload and no pod. Its timings go to
#      WORK/kueue-timings.txt and the report.
#  13. GPU pods on CPU ranks (tests/e2e/pods_scenario.sh): a job of 2 pods x 2 processes with
#      resources.sharedMemory 256Mi and a template "trainer" entry (envFrom a ConfigMap, env
#      valueFrom the node name, the ConfigMap mounted at /etc/nccl): a local rank sees a /dev/shm
#      above 64 MiB, the ConfigMap's and the valueFrom variables, the operator's WORLD_SIZE and the
#      mounted file; the job Succeeds at world size 4. Then the node advertises 4 example.com/gpu
#      (node status patched) and a job of 2 pods x 2 of them (acceleratorResource example.com/gpu)
#      is scheduled with limits example.com/gpu: 2 and a 2Gi /dev/shm (it is deleted before its
#      trainer, asked for --device cuda, matters).
#
#   tests/e2e/e2e_test.sh BIN_DIR CSV      (BIN_DIR holds petname and petname-operator)
#
# Images: docker/build.sh --binaries BIN_DIR (as docker.smoke), imported into the node's containerd.
# Exit 0 when every check passes, 1 when one fails, 77 (ctest SKIP_RETURN_CODE) only when the node
# cannot start on this machine (not root, or node-up.sh exit 3: containerd/kubelet/... exited
# here), with one `SKIP: ...` line saying why; a node that does not become ready in time fails.
# Each scenario plans its checks (tests/lib/checks.sh): the run fails unless it reached its end,
# no check failed and every planned check passed. A scenario stops at its first failed step
# (`stop`: the rest depends on it) and the next one starts; a command that fails outside a check
# stops the whole run, naming the command. Prints `N passed, N failed`, the time of each scenario
# and the node's resource use (also in WORK/report.md). Everything it starts is stopped on exit
# (the cluster also by its watchdog); WORK is kept when a check failed.
# Env: E2E_MAX_NAMES (default 3000), E2E_EPOCHS (default 4), E2E_BATCH (default 256), sizes of
# each job (small enough for < 2 min per scenario on 2 cores, big enough to be killed mid-training);
# E2E_SCENARIOS (default "1 2 3 4 5 6 7 8 9 10 13 12 11"): the scenarios to run after scenario 1, which installs
# the operator and always runs.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN_DIR=$(cd "${1:?usage: e2e_test.sh BIN_DIR CSV}" && pwd)
CSV=${2:?usage: e2e_test.sh BIN_DIR CSV}
MAX_NAMES=${E2E_MAX_NAMES:-3000}
EPOCHS=${E2E_EPOCHS:-4}
BATCH=${E2E_BATCH:-256}
SCENARIOS=${E2E_SCENARIOS:-1 2 3 4 5 6 7 8 9 10 13 12 11}
for n in $SCENARIOS; do
  [[ $n =~ ^([1-9]|1[0-3])$ ]] || { echo "e2e_test.sh: E2E_SCENARIOS: no scenario '$n' (1-13)" >&2; exit 2; }
done
# shellcheck source-path=SCRIPTDIR source=../cluster/env.sh
source "$ROOT/tests/cluster/env.sh"
# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$ROOT/tests/support/ports.sh"
# shellcheck source-path=SCRIPTDIR source=../cluster/lib.sh
source "$ROOT/tests/cluster/lib.sh"

if (($(id -u) != 0)); then
  echo "SKIP: the single-node cluster needs root (bridge, cgroups, containerd)" >&2
  exit 77
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/petname-e2e.XXXXXX")
CLUSTER=$WORK/cluster
NS=e2e
OP_NS=petname-system
CHECKS_LOG=$WORK/checks.log
# shellcheck source-path=SCRIPTDIR source=../lib/checks.sh
source "$ROOT/tests/lib/checks.sh"
PIDS=()
declare -A SCENARIO_SECONDS=()

log() { printf '[e2e] %s\n' "$*" >&2; }
finish() {
  local rc=$? pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -f $CLUSTER/kubeconfig ]] && declare -F report >/dev/null; then report; fi
  "$ROOT/tests/cluster/down.sh" "$CLUSTER" >&2 || true
  if ((rc == 0 && FAILED == 0)); then rm -rf "$WORK"; else echo "logs kept in $WORK" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM
export PETNAME_CLUSTER_OWNER_PID=$$

k() { "$KUBECTL" --kubeconfig "$CLUSTER/kubeconfig" "$@"; }
kn() { k -n "$NS" "$@"; }
# A scenario stops at its first failed step: `stop MESSAGE` (a failed check) sets STOP, and the
# scenario then returns 0, as do the helpers it calls (its caller: `helper; if ((STOP)); then
# return 0; fi`). A non-zero status is left to commands that failed outside a check: under
# `set -e` they end the run (checks_finish names the command).
STOP=0
stop() { not_ok "$1"; STOP=1; }
# step NAME SECONDS CMD...: a check that the rest of the scenario depends on (eventually true);
# on failure it stops the scenario (`step ... || return 0`)
step() {
  local name=$1 secs=$2
  shift 2
  if eventually "$secs" "$@"; then ok "$name"; else stop "$name"; return 1; fi
}

# ---- images and the node ---------------------------------------------------------------------
if ! "$ROOT/docker/build.sh" --binaries "$BIN_DIR" operator trainer >"$WORK/images" 2>"$WORK/images.log"; then
  cat "$WORK/images.log" >&2
  not_ok "setup: docker/build.sh --binaries $BIN_DIR operator trainer"
  exit 1
fi
mapfile -t TAGS <"$WORK/images"
OPERATOR_IMAGE=${TAGS[0]:?docker/build.sh printed no operator image}
TRAINER_IMAGE=${TAGS[1]:?docker/build.sh printed no trainer image}
# One node per machine (node-up.sh owns a fixed bridge and cgroup): a second e2e run, e.g. from
# another worktree, waits here for the first one to finish (the lock goes with this process).
exec {lock_fd}>/run/lock/petname-e2e.lock
if ! flock -n "$lock_fd"; then
  log "another e2e run holds /run/lock/petname-e2e.lock; waiting for it (at most 30 min)"
  flock -w 1800 "$lock_fd" || { not_ok "waited 30 min for another e2e run to finish"; exit 1; }
fi
T0=$SECONDS
rc=0
"$ROOT/tests/cluster/node-up.sh" "$CLUSTER" "$OPERATOR_IMAGE" "$TRAINER_IMAGE" >/dev/null 2>"$WORK/node-up.log" || rc=$?
if ((rc == 3)); then
  cat "$WORK/node-up.log" >&2
  echo "SKIP: the node cannot start here: $(sed -n 's/.*NODE-UNAVAILABLE: //p' "$WORK/node-up.log" | head -n 1)" >&2
  trap - EXIT
  rm -rf "$WORK"
  exit 77
fi
if ((rc != 0)); then
  cat "$WORK/node-up.log" >&2
  not_ok "setup: single-node cluster (node-up.sh exit $rc)"
  exit 1
fi
SCENARIO_SECONDS[node-up]=$((SECONDS - T0))
log "single-node cluster up (node-up.sh)"
# shellcheck source=/dev/null
source "$CLUSTER/cluster.env"
CTR=(ctr --address "$PETNAME_CONTAINERD_SOCK" --namespace k8s.io)

# ---- resource sampling (every 2 s): load, node cgroup memory/CPU, daemons' RSS ----------------
daemon_pids() {
  cat "$CLUSTER"/*.pid "$PETNAME_NODE_DIR"/*.pid 2>/dev/null | grep -E '^[0-9]+$' || true
}
sample_resources() {
  local cg_mem=/sys/fs/cgroup/memory/petname-node/memory.usage_in_bytes
  local cg_cpu=/sys/fs/cgroup/cpuacct/petname-node/cpuacct.usage
  echo "seconds load1 mem_available_kb pods_mem_bytes pods_cpu_ns daemons_rss_kb daemons_cpu_ticks"
  while kill -0 $$ 2>/dev/null; do # ($$: this script, also when it is killed with SIGKILL)
    local rss=0 ticks=0 pid
    for pid in $(daemon_pids); do
      [[ -r /proc/$pid/stat ]] || continue
      rss=$((rss + $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)))
      ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$SECONDS $(cut -d' ' -f1 /proc/loadavg) $(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)" \
      "$(cat $cg_mem 2>/dev/null || echo 0) $(cat $cg_cpu 2>/dev/null || echo 0) $rss $ticks"
    sleep 2
  done
}
sample_resources >"$WORK/resources.tsv" &
PIDS+=($!)

report() {
  {
    echo "| scenario | seconds |"
    echo "|---|---|"
    local s
    for s in node-up 1-install-train 2-kill-rank 3-kill-operator 4-delete 5-processes 6-node-daemons 7-sweep 8-damaged-checkpoint 9-shared-claim 10-start 13-gpu-pods 12-kueue 11-quick-start; do
      echo "| $s | ${SCENARIO_SECONDS[$s]:-not run} |"
    done
    echo
    [[ -f $WORK/kueue-timings.txt ]] && { cat "$WORK/kueue-timings.txt"; echo; }
    awk 'NR > 1 {
        n++; load += $2; if ($2 > maxload) maxload = $2
        if (min_avail == "" || $3 < min_avail) min_avail = $3
        if ($4 > pods_mem) pods_mem = $4
        if ($6 > rss) rss = $6
        if (first_cpu == "") { first_cpu = $5; first_ticks = $7 }
        last_cpu = $5; last_ticks = $7
      }
      END {
        if (n == 0) exit
        printf "resources over %d samples (2 s): load1 mean %.2f max %.2f; MemAvailable min %.0f MiB;\n", n, load / n, maxload, min_avail / 1024
        printf "pods (cgroup /petname-node) peak memory %.0f MiB, CPU %.0f s; node and control-plane daemons peak RSS %.0f MiB, CPU %.0f s\n",
          pods_mem / 1048576, (last_cpu - first_cpu) / 1e9, rss / 1024, (last_ticks - first_ticks) / 100
      }' "$WORK/resources.tsv"
  } | tee "$WORK/report.md" >&2
}

# ---- helpers for jobs --------------------------------------------------------------------------
mkdir -p "$WORK/data"
head -n $((MAX_NAMES + 1)) "$CSV" >"$WORK/data/pets.csv"
chmod -R a+rX "$WORK" # the ranks run as 65532 and read the data through a hostPath

# hostpath_volume NAME DIR NAMESPACE CLAIM MODES SIZE RECLAIM: the PersistentVolume NAME on the
# node's directory DIR (made, owned by the ranks' uid), bound in advance to the claim
# NAMESPACE/CLAIM as a provisioner would bind it; MODES a flow list such as [ReadWriteOnce]
hostpath_volume() {
  mkdir -p "$2"
  chown 65532:65532 "$2"
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: $1}
spec:
  capacity: {storage: $6}
  accessModes: $5
  persistentVolumeReclaimPolicy: $7
  storageClassName: ""
  hostPath: {path: "$2", type: Directory}
  claimRef: {namespace: $3, name: $4}
YAML
}

# storage JOB: a hostPath PersistentVolume bound to the claim JOB-ckpt, and that claim
storage() {
  hostpath_volume "$NS-$1-ckpt" "$WORK/ckpt/$1" "$NS" "$1-ckpt" "[ReadWriteOnce]" 1Gi Retain
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1-ckpt, namespace: $NS}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: $NS-$1-ckpt
  resources: {requests: {storage: 1Gi}}
YAML
}
# create_job JOB [SPEC_LINE]: 2 pods of one rank (unless SPEC_LINE, e.g. "  resources: {...}",
# says otherwise), 1 thread each, checkpoint every epoch (all kept) on JOB-ckpt
create_job() {
  storage "$1"
  job_on_claim "$1" "$1-ckpt" "" "${2:-}"
}
# job_on_claim JOB CLAIM SUBPATH [SPEC_LINE [DATA_CLAIM]]: create_job's job on the claim CLAIM, in
# its directory SUBPATH ("": none, so the operator's default, the job's name); its data pets.csv
# from the claim DATA_CLAIM, else from WORK/data (a hostPath)
job_on_claim() {
  local data="{hostPath: \"$WORK/data\"}"
  [[ -z ${5:-} ]] || data="{claimName: $5}"
  kn apply -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: $1}
spec:
  replicas: 2
  image: $TRAINER_IMAGE
  imagePullPolicy: Never
  dataset:
    path: /data/pets.csv
    maxNames: $MAX_NAMES
    volume: $data
  training: {epochs: $EPOCHS, batchSizePerReplica: $BATCH, threads: 1}
  checkpoint: {claimName: $2, everyEpochs: 1, keep: 1000${3:+, subPath: $3}}
  runPolicy: {restartBackoffSeconds: 1, backoffLimit: 2}
${4:-}
YAML
}
# ---- holding a job's ranks still --------------------------------------------------------------
# The scenarios that strike a job mid-training (a kill, a restart, a preemption) act while its
# rank containers are paused (containerd's pause: the cgroup freezer). What they read of its
# progress then cannot change before they act, and the job cannot end first: the verdict does
# not depend on the machine's speed.
# rank_tasks JOB: the containerd task ids of JOB's rank containers that have started
rank_tasks() {
  kn get pods -l "petname.dev/job-name=$1" \
    -o jsonpath='{range .items[*]}{.status.containerStatuses[0].containerID}{"\n"}{end}' |
    sed -n 's|^containerd://||p'
}
# hold JOB N: pauses JOB's rank containers, all N of them or none
hold() {
  local ids id
  mapfile -t ids < <(rank_tasks "$1")
  ((${#ids[@]} == $2)) || return 1
  for id in "${ids[@]}"; do
    "${CTR[@]}" tasks pause "$id" >>"$CHECKS_LOG" 2>&1 || { release "$1"; return 1; }
  done
}
# release JOB: resumes JOB's paused rank containers
release() {
  local id
  for id in $(rank_tasks "$1"); do "${CTR[@]}" tasks resume "$id" >>"$CHECKS_LOG" 2>&1 || true; done
}
# held_at JOB EPOCH [N]: holds JOB's N (default 2) rank containers once its newest checkpoint is
# of EPOCH or later; until then leaves them running and fails (`step` polls it)
held_at() {
  hold "$1" "${3:-2}" || return 1
  if (($(latest_epoch "$1") >= $2)); then return 0; fi
  release "$1"
  return 1
}
# term_pending JOB: each rank container's first process has a SIGTERM pending, sent while it was
# held (the kubelet stopping its pod); /proc/PID/status ShdPnd, bit 15
term_pending() {
  local id pid mask
  for id in $(rank_tasks "$1"); do
    pid=$("${CTR[@]}" tasks ls | awk -v id="$id" '$1 == id {print $2}')
    mask=$(awk '/^ShdPnd:/ {print $2}' "/proc/$pid/status") || return 1
    (((0x$mask >> 14) & 1)) || return 1
  done
}
# strike JOB AT NAME CMD...: JOB's ranks held at the checkpoint of epoch AT, runs CMD when that is
# before the last epoch, releases them and reports NAME: ok, or a stop (`strike ... || return 0`)
strike() {
  local job=$1 at=$2 name=$3
  shift 3
  if ((at < EPOCHS)) && "$@" >>"$CHECKS_LOG" 2>&1; then
    release "$job"
    ok "$name (after epoch $at of $EPOCHS, the ranks held)"
    return 0
  fi
  release "$job"
  stop "$name (mid-training: checkpoint epoch $at of $EPOCHS)"
  return 1
}
# train_until_checkpoint JOB: creates JOB and holds its ranks once its first checkpoint is written
# (world size 2: both ranks trained epoch 1), the moment scenarios 2, 3 and 6 strike; the caller
# releases them
train_until_checkpoint() {
  create_job "$1"
  step "first checkpoint of $1 written (both ranks trained epoch 1), its ranks held" 180 held_at "$1" 1 ||
    return 0
}
job_field() { kn get pntj "$1" -o jsonpath="$2"; }
phase_is() { [[ $(job_field "$1" '{.status.phase}') == "$2" ]]; }
pod_phase_is() { [[ $(kn get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null) == "$2" ]]; }
both_running() { pod_phase_is "$1-rank-0" Running && pod_phase_is "$1-rank-1" Running; }
# ckpt_dir JOB: the trainer's checkpoint directory of create_job's JOB on the host (the claim's
# directory JOB: no subPath)
ckpt_dir() { echo "$WORK/ckpt/$1/$1"; }
latest_epoch() { # JOB: epoch of the newest checkpoint on the volume (0 when none yet)
  local latest
  latest=$(cat "$(ckpt_dir "$1")/latest" 2>/dev/null) || { echo 0; return; }
  latest=${latest##*epoch-}
  echo $((10#${latest%%[^0-9]*}))
}
checkpointed() { (($(latest_epoch "$1") >= 1)); }
final_checkpoint() { [[ -f $(ckpt_dir "$1")/epoch-$(printf '%06d' "$EPOCHS")/manifest.json ]]; }
save_logs() { # JOB: both ranks' logs into WORK/logs/JOB-rank-N.log
  mkdir -p "$WORK/logs"
  local r
  for r in 0 1; do kn logs "$1-rank-$r" >"$WORK/logs/$1-rank-$r.log" 2>&1 || true; done
}
# check_resumed_after_restart JOB AT: after one gang restart (status.restarts 1, pods of restart
# generation 1) rank 0 resumed from the checkpoint of an epoch >= AT and >= 1 (saved logs);
# sets RESUMED to that epoch
check_resumed_after_restart() {
  check "status.restarts = 1" test "$(job_field "$1" '{.status.restarts}')" = 1
  check "the new rank pods are restart generation 1" test \
    "$(kn get pod "$1-rank-0" -o jsonpath='{.metadata.labels.petname\.dev/restart-generation}')" = 1
  RESUMED=$(sed -n 's/.*resuming from .*(epoch \([0-9]*\).*/\1/p' "$WORK/logs/$1-rank-0.log" | head -n 1)
  if [[ -n $RESUMED ]] && ((RESUMED >= 1 && RESUMED >= $2)); then
    ok "rank 0 resumed from the checkpoint of epoch $RESUMED (not from zero)"
  else
    not_ok "rank 0 resumed from the last checkpoint (log says: '${RESUMED:-no resume}', killed after $2)"
  fi
}
operator_pods() { # names of the operator pods that are not being deleted
  k -n "$OP_NS" get pods -l app.kubernetes.io/name=petname-operator -o json |
    jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .metadata.name'
}
operator_ready() { # [NOT_NAME]: one operator pod other than NOT_NAME is Ready
  local name
  for name in $(operator_pods); do
    [[ $name == "${1:-}" ]] && continue
    [[ $(k -n "$OP_NS" get pod "$name" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]] && return 0
  done
  return 1
}

# shellcheck source-path=SCRIPTDIR source=prometheus.sh
source "$ROOT/tests/e2e/prometheus.sh"
# shellcheck source-path=SCRIPTDIR source=procs_scenario.sh
source "$ROOT/tests/e2e/procs_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=node_restart_scenario.sh
source "$ROOT/tests/e2e/node_restart_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=sweep_scenario.sh
source "$ROOT/tests/e2e/sweep_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=checkpoint_scenario.sh
source "$ROOT/tests/e2e/checkpoint_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=shared_claim_scenario.sh
source "$ROOT/tests/e2e/shared_claim_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=doc_scenario.sh
source "$ROOT/tests/e2e/doc_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=start_scenario.sh
source "$ROOT/tests/e2e/start_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=kueue_scenario.sh
source "$ROOT/tests/e2e/kueue_scenario.sh"
# shellcheck source-path=SCRIPTDIR source=pods_scenario.sh
source "$ROOT/tests/e2e/pods_scenario.sh"

# ---- scenario 1: helm install, a 2-rank job to Succeeded ---------------------------------------
scenario_1() {
  local job=pets t0=$SECONDS
  checks_plan 11
  log "scenario 1: helm install, a 2-rank job to Succeeded"
  step "helm install charts/petname-operator" 120 "$HELM" --kubeconfig "$CLUSTER/kubeconfig" \
    upgrade --install petname "$ROOT/charts/petname-operator" -n "$OP_NS" --create-namespace \
    --set "image.repository=${OPERATOR_IMAGE%:*}" --set "image.tag=${OPERATOR_IMAGE##*:}" \
    --set image.pullPolicy=Never --set operator.logLevel=debug \
    --set 'operator.extraArgs={--progress-interval=2s}' || return 0
  step "operator pod Ready (it reached the API server through the kubernetes Service)" 120 operator_ready || return 0
  check "helm test: the test Pod got 200 from /healthz and /readyz through the operator's Service" \
    "$HELM" --kubeconfig "$CLUSTER/kubeconfig" test petname -n "$OP_NS" --timeout 180s --logs
  k create namespace "$NS" >/dev/null
  eventually 60 kn get serviceaccount default || true
  prometheus_start
  create_job "$job"
  step "rank pods Running" 120 both_running "$job" || return 0
  check "Prometheus targets: the 2 rank pods' IPs" publish_targets "$job" 2
  local progress=0 deadline=$((SECONDS + 240)) phase=""
  local epoch
  while ((SECONDS < deadline)); do
    phase=$(job_field "$job" '{.status.phase}')
    epoch=$(job_field "$job" '{.status.progress.epoch}')
    if [[ $phase == Running ]] && ((${epoch:-0} > progress)); then progress=$epoch; fi
    [[ $phase == Succeeded || $phase == Failed ]] && break
    sleep 1
  done
  save_logs "$job"
  if [[ $phase == Succeeded ]]; then ok "job Succeeded"; else stop "job Succeeded (phase: $phase)"; return 0; fi
  SCENARIO_SECONDS[1-install-train]=$((SECONDS - t0))
  if ((progress >= 1)); then ok "status.progress.epoch filled while Running (saw $progress)"; else not_ok "status.progress.epoch filled while Running"; fi
  check "rank 1 resolved and reached rank 0 (world size 2 in the checkpoint)" \
    grep -q '"world_size": *2' "$(ckpt_dir "$job")/epoch-$(printf '%06d' "$EPOCHS")/manifest.json"
  check "checkpoints of every epoch on the volume" final_checkpoint "$job"
  generate() { "$BIN_DIR/petname" generate --checkpoint "$(ckpt_dir "$1")" --count 5 --seed 7 | tee "$WORK/names.txt" && (($(grep -c '[A-Za-z]' "$WORK/names.txt") == 5)); }
  check "petname generate prints names from the checkpoint" generate "$job"
  check "Prometheus on the host scraped both ranks through pod IPs" eventually 30 scraped_all "$job" 2
}

# ---- scenario 2: kill rank 1's container mid-training -----------------------------------------
scenario_2() {
  local job=killrank t0=$SECONDS
  checks_plan 13
  log "scenario 2: kill rank 1's container mid-training"
  train_until_checkpoint "$job"
  if ((STOP)); then return 0; fi
  local id at
  id=$(kn get pod "$job-rank-1" -o jsonpath='{.status.containerStatuses[0].containerID}')
  at=$(latest_epoch "$job")
  strike "$job" "$at" "killed rank 1's container ${id#containerd://} (SIGKILL)" \
    "${CTR[@]}" tasks kill -s SIGKILL "${id#containerd://}" || return 0
  step "job Succeeded after the gang restart" 300 phase_is "$job" Succeeded || { save_logs "$job"; return 0; }
  SCENARIO_SECONDS[2-kill-rank]=$((SECONDS - t0))
  save_logs "$job"
  check_resumed_after_restart "$job" "$at"
  local resumed=$RESUMED
  # The epoch counter continues: after the resume, epochs resumed+1 .. EPOCHS were trained, once each.
  continues() {
    local trained
    trained=$(grep -o 'epoch [0-9]*/' "$WORK/logs/$job-rank-0.log" | tr -dc '0-9\n' | paste -sd' ')
    echo "epochs trained after resuming: $trained"
    [[ $trained == "$(seq -s' ' $((resumed + 1)) "$EPOCHS")" ]]
  }
  check "epochs after the resume continue from it ($((resumed + 1))..$EPOCHS)" continues
  check "final checkpoint on the volume" final_checkpoint "$job"
  check_kept_logs "$job"
}
# check_kept_logs JOB: after scenario 2's restart the killed rank 1's log of attempt 0 is still on
# the claim, where the Restarting event says, and reads back the documented way (`petname logs`
# on the claim's directory); attempt 1's rank 0 log holds what `kubectl logs` showed of it
check_kept_logs() {
  local job=$1 dir
  dir=$(ckpt_dir "$job")
  said() {
    kn get events --field-selector "involvedObject.name=$job,reason=Restarting" \
      -o jsonpath='{.items[*].message}' |
      grep -E "rank ([01])'s log of attempt 0: /checkpoints/$job/logs/attempt-0/rank-\1\.log on claim $job-ckpt"
  }
  logs() { "$BIN_DIR/petname" logs --checkpoint-dir "$dir" "$@"; }
  listed() { (($(logs | tee /dev/stderr | grep -c '^attempt [01]: rank 0 (.*), rank 1 (') == 2)); }
  private() { logs --attempt 0 --rank 1 && [[ $(stat -c %a "$dir/logs/attempt-0/rank-1.log") == 600 ]]; }
  epoch1() { logs --attempt 0 --rank 0 | grep '^epoch 1/'; }
  same() { diff <(sort "$WORK/logs/$job-rank-0.log") <(logs --attempt 1 --rank 0 | sort); }
  # Rank 0 fails too, at once, when its peer vanishes: the event names whichever failed rank the
  # operator saw first.
  check "the Restarting event says where the failed rank's log of attempt 0 is" said
  check "petname logs lists ranks 0 and 1 of attempts 0 and 1" listed
  check "rank 1's log of attempt 0 reads back, mode 0600" private
  check "rank 0's log of attempt 0 holds epoch 1" epoch1
  check "rank 0's log of attempt 1 holds every line kubectl logs showed" same
}

# ---- scenario 3: kill the operator pod mid-training -------------------------------------------
scenario_3() {
  local job=killop t0=$SECONDS
  checks_plan 7
  log "scenario 3: kill the operator pod mid-training"
  train_until_checkpoint "$job"
  if ((STOP)); then return 0; fi
  local uids old at
  uids=$(kn get pods -l "petname.dev/job-name=$job" -o jsonpath='{.items[*].metadata.uid}')
  old=$(operator_pods | head -n 1)
  at=$(latest_epoch "$job")
  strike "$job" "$at" "deleted the operator pod $old (grace 0)" \
    k -n "$OP_NS" delete pod "$old" --grace-period=0 --force || return 0
  # Until the job is done: never more than 2 rank pods, the same 2.
  local most=0 n phase=""
  local deadline=$((SECONDS + 300))
  while ((SECONDS < deadline)); do
    n=$(kn get pods -l "petname.dev/job-name=$job" -o name | wc -l)
    ((n > most)) && most=$n
    phase=$(job_field "$job" '{.status.phase}')
    [[ $phase == Succeeded || $phase == Failed ]] && break
    sleep 0.5
  done
  SCENARIO_SECONDS[3-kill-operator]=$((SECONDS - t0))
  save_logs "$job"
  check "the Deployment brought a new operator pod (Ready)" eventually 60 operator_ready "$old"
  if [[ $phase == Succeeded ]]; then ok "job Succeeded"; else not_ok "job Succeeded (phase: $phase)"; fi
  if ((most <= 2)); then ok "no duplicate rank pods (at most $most)"; else not_ok "no duplicate rank pods ($most seen)"; fi
  check "the rank pods are the ones from before the operator restart" test \
    "$(kn get pods -l "petname.dev/job-name=$job" -o jsonpath='{.items[*].metadata.uid}')" = "$uids"
  check "status.restarts = 0" test "$(job_field "$job" '{.status.restarts}')" = 0
}

# ---- scenario 4: delete a job (scenario 1's, its Succeeded pods are kept) ----------------------
scenario_4() {
  local job=pets t0=$SECONDS
  checks_plan 2
  log "scenario 4: delete a job"
  no_pods() { [[ -z $(kn get pods -l "petname.dev/job-name=$job" -o name) ]]; }
  no_service() { ! kn get service "$job" >/dev/null 2>&1; }
  if no_pods; then stop "job $job has pods to delete"; return 0; fi
  kn get service "$job" >/dev/null || { stop "job $job has a Service"; return 0; }
  kn delete pntj "$job" --wait=false >/dev/null
  check "pods garbage-collected" eventually 120 no_pods
  check "Service garbage-collected" eventually 120 no_service
  SCENARIO_SECONDS[4-delete]=$((SECONDS - t0))
}

# dead_daemon: prints the pid file of a cluster or node daemon that no longer runs (lib.sh's
# daemon_alive) and succeeds; fails when every daemon with a pid file runs. After one exited,
# every scenario would time out.
dead_daemon() {
  local pidfile
  for pidfile in "$CLUSTER"/*.pid "$PETNAME_NODE_DIR"/*.pid; do
    [[ -f $pidfile ]] || continue
    daemon_alive "${pidfile%/*}" "$(basename "$pidfile" .pid)" || { echo "$pidfile"; return 0; }
  done
  return 1
}

# Each scenario plans and reports its own checks; 2-4 need the operator that 1 installs.
scenario_1
if eventually 5 operator_ready; then
  for n in $SCENARIOS; do
    ((n > 1)) || continue
    if dead=$(dead_daemon); then
      tail -n 20 "${dead%.pid}.log" >&2
      not_ok "$(basename "$dead" .pid) exited (log ${dead%.pid}.log); scenarios from $n on not run"
      break
    fi
    STOP=0
    "scenario_$n"
  done
else
  not_ok "scenarios $SCENARIOS: no Ready operator after scenario 1"
fi
checks_done
