# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its k, kn, CTR, WORK, EPOCHS, step, check, create_job, job_on_claim,
# storage, both_running, phase_is, job_field, save_logs, ckpt_dir and procs_scenario.sh's
# rank_processes, two_ranks_each, world_size_is): scenario 13, the rank pods that GPU jobs need,
# on CPU ranks: /dev/shm, the accelerator resource name, the template's trainer extensions.

# pid_of_local_rank POD K: the host pid of local rank K's process in POD
pid_of_local_rank() { rank_processes "$1" | awk -v k="$2" '$2 == k {print $1}'; }
# environ_has PID NAME=VALUE: the process has that variable
environ_has() { tr '\0' '\n' <"/proc/$1/environ" | grep -qx "$2"; }
# shm_bytes PID: the size of the filesystem at /dev/shm in the process's mount namespace
shm_bytes() { stat -f -c '%b %S' "/proc/$1/root/dev/shm" | awk '{print $1 * $2}'; }
# pod_json_is POD JQ: JQ (a jq boolean expression over the pod) holds
pod_json_is() { kn get pod "$1" -o json | jq -e "$2" >/dev/null; }
# scheduled POD: the scheduler bound POD to a node
scheduled() {
  [[ $(kn get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}') == True ]]
}

# ---- scenario 13: GPU pods NCCL accepts, on CPU ranks ---------------------------------------------
scenario_13() {
  local job=shm accel=accel t0=$SECONDS node pid
  checks_plan 12
  log "scenario 13: /dev/shm, the accelerator resource name and the template's trainer extensions"
  kn apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: nccl-settings}
data: {NCCL_DEBUG: INFO, NCCL_SOCKET_IFNAME: eth0, E2E_FROM_CONFIGMAP: "yes"}
YAML
  # 2 pods x 2 CPU processes; /dev/shm of 256Mi; the template adds envFrom the ConfigMap, a
  # valueFrom variable and a mount of the ConfigMap at /etc/nccl to the trainer container.
  create_job "$job" "  resources: {processesPerReplica: 2, sharedMemory: 256Mi}
  template:
    spec:
      volumes: [{name: nccl, configMap: {name: nccl-settings}}]
      containers:
        - name: trainer
          envFrom: [{configMapRef: {name: nccl-settings}}]
          env: [{name: E2E_NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
          volumeMounts: [{name: nccl, mountPath: /etc/nccl, readOnly: true}]"
  step "rank pods of $job Running" 120 both_running "$job" || return 0
  check "each pod of $job runs local ranks 0 and 1" eventually 30 two_ranks_each "$job"
  check "$job's pods carry the memory-backed /dev/shm volume of 256Mi, mounted in the trainer" \
    pod_json_is "$job-rank-1" '(.spec.volumes[] | select(.name == "shm") | .emptyDir == {"medium": "Memory", "sizeLimit": "256Mi"})
      and ([.spec.containers[] | select(.name == "trainer") | .volumeMounts[] | select(.mountPath == "/dev/shm")] | length == 1)'
  pid=$(pid_of_local_rank "$job-rank-1" 1 || true)
  if [[ -z $pid ]]; then
    not_ok "local rank 1 of $job-rank-1 found"
  else
    local bytes
    bytes=$(shm_bytes "$pid")
    check "local rank 1 of $job-rank-1 sees a /dev/shm larger than the runtime's 64 MiB ($bytes bytes)" \
      test "$bytes" -gt $((64 << 20))
    check "local rank 1 has the ConfigMap's variables (envFrom) and E2E_NODE (valueFrom)" \
      eval "environ_has $pid E2E_FROM_CONFIGMAP=yes && environ_has $pid NCCL_DEBUG=INFO &&
        environ_has $pid E2E_NODE=$(kn get pod "$job-rank-1" -o jsonpath='{.spec.nodeName}')"
    check "the operator's variables won: WORLD_SIZE=4, MASTER_PORT=29500" \
      eval "environ_has $pid WORLD_SIZE=4 && environ_has $pid MASTER_PORT=29500"
    check "the template's mount is in the trainer container (/etc/nccl/NCCL_DEBUG)" \
      grep -qx INFO "/proc/$pid/root/etc/nccl/NCCL_DEBUG"
  fi
  step "$job Succeeded" 300 phase_is "$job" Succeeded || { save_logs "$job"; return 0; }
  check "final checkpoint of $job, written by a world of 4 ranks" world_size_is "$job" "$EPOCHS" 4

  # The accelerator resource: the node advertises 4 of a made-up extended resource; a job of
  # 2 pods x 2 of them (P = 2) is scheduled onto it, each pod asking for example.com/gpu: 2.
  node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
  k patch node "$node" --subresource=status --type=json \
    -p '[{"op": "add", "path": "/status/capacity/example.com~1gpu", "value": "4"}]' >>"$CHECKS_LOG" 2>&1
  node_has_gpus() { [[ $(k get node "$node" -o jsonpath='{.status.allocatable.example\.com/gpu}') == 4 ]]; }
  step "node $node advertises example.com/gpu: 4" 60 node_has_gpus || return 0
  create_job "$accel" "  backend: gloo
  resources: {gpusPerReplica: 2, acceleratorResource: example.com/gpu}
  runPolicy: {restartPolicy: Never}"
  check "both pods of $accel scheduled onto $node (example.com/gpu: 2 each)" \
    eventually 120 eval "scheduled $accel-rank-0 && scheduled $accel-rank-1"
  check "$accel's trainer asks for example.com/gpu: 2 and no nvidia.com/gpu; /dev/shm is 2Gi (1Gi per process)" \
    pod_json_is "$accel-rank-0" '(.spec.containers[] | select(.name == "trainer") | .resources.limits
        | .["example.com/gpu"] == "2" and (has("nvidia.com/gpu") | not))
      and (.spec.volumes[] | select(.name == "shm") | .emptyDir.sizeLimit == "2Gi")'
  kn delete pntj "$accel" --wait=false >>"$CHECKS_LOG" 2>&1 || true
  no_accel_pods() { [[ -z $(kn get pods -l "petname.dev/job-name=$accel" -o name) ]]; }
  eventually 120 no_accel_pods || true
  k patch node "$node" --subresource=status --type=json \
    -p '[{"op": "remove", "path": "/status/capacity/example.com~1gpu"}]' >>"$CHECKS_LOG" 2>&1 || true
  kn delete configmap nccl-settings >>"$CHECKS_LOG" 2>&1 || true
  SCENARIO_SECONDS[13-gpu-pods]=$((SECONDS - t0))
}
