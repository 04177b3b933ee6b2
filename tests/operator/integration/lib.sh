# shellcheck shell=bash
# Helpers for the operator integration tests. Each test sources this, runs against the control
# plane the ctest fixture started (PETNAME_CLUSTER_DIR), in a namespace of its own, with the real
# petname-operator binary (PETNAME_OPERATOR). Like envtest there is no kubelet: tests move pods
# through phases by patching pod status through the status subresource.
set -euo pipefail

: "${PETNAME_CLUSTER_DIR:?run through ctest (the operator_cluster fixture sets it)}"
: "${PETNAME_OPERATOR:?path of petname-operator}"
# shellcheck source=/dev/null
source "$PETNAME_CLUSTER_DIR/cluster.env"
# shellcheck source-path=SCRIPTDIR source=../../support/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../support/ports.sh"
# shellcheck source-path=SCRIPTDIR source=../../lib/poll.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/poll.sh"

TEST_NAME=$(basename "$0" .sh)
NS="${TEST_NAME//_/-}-$RANDOM"
LOG_DIR="$PETNAME_CLUSTER_DIR/logs/$TEST_NAME"
mkdir -p "$LOG_DIR"
OP_PID=""
METRICS_PORT=""

log() { printf '[%s] %s\n' "$TEST_NAME" "$*" >&2; }
fail() {
  log "FAIL: $*"
  exit 1
}
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG" -n "$NS" "$@"; }

# wait_until DESCRIPTION SECONDS CMD...: polls CMD until it succeeds (pausing as poll.sh says),
# else fails the test.
wait_until() {
  local what=$1 deadline=$((SECONDS + $2)) polls=0
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out waiting for $what"
    poll_pause $((polls++))
  done
}

# start_operator [FLAGS...]: runs petname-operator for this test's namespace; waits for /metrics.
# HEALTH_BIND (default 0: off) is its --health-probe-bind-address; OP_KUBECONFIG (default
# $KUBECONFIG) its --kubeconfig.
start_operator() {
  METRICS_PORT=$(free_port)
  "$PETNAME_OPERATOR" --kubeconfig "${OP_KUBECONFIG:-$KUBECONFIG}" --namespace "$NS" --log-level debug \
    --health-probe-bind-address "${HEALTH_BIND:-0}" \
    --metrics-bind-address "127.0.0.1:$METRICS_PORT" "$@" \
    >>"$LOG_DIR/operator.log" 2>&1 &
  OP_PID=$!
  wait_until "operator /metrics" 20 curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics"
}

# stop_operator [SIGNAL]: TERM (default) must stop it cleanly with exit 0.
stop_operator() {
  local sig=${1:-TERM} rc=0
  [[ -n $OP_PID ]] || return 0
  kill "-$sig" "$OP_PID" 2>/dev/null || true
  wait "$OP_PID" || rc=$?
  OP_PID=""
  if [[ $sig == TERM && $rc -ne 0 ]]; then fail "operator exited $rc after SIGTERM"; fi
}

metric() { curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# metric_value SERIES: its value, 0 while it is not exported yet.
metric_value() {
  local v
  v=$(metric "$1" | head -n1)
  echo "${v:-0}"
}

# ---- proof of processing ----------------------------------------------------------------------
# An absence ("nothing more happened") is asserted only once the operator provably processed the
# change: a status field, a condition or an Event that only a reconcile which saw the change
# writes (`processed`), or a reconcile counted after a touch of the job (`touched`); and then the
# operator is idle: no key ready or being processed in its work queues (keys that wait for a
# requeue time, such as a restart backoff, do not count).
# idle [PORT]: every workqueue_depth and workqueue_longest_running_processor_seconds series of
# the operator on PORT (default: METRICS_PORT) is 0
idle() {
  curl -fsS "http://127.0.0.1:${1:-$METRICS_PORT}/metrics" | awk '
    /^(workqueue_depth|workqueue_longest_running_processor_seconds)\{/ { n++; if ($2 != 0) busy = 1 }
    END { exit !(n > 0 && !busy) }'
}
# processed WHAT SECONDS CMD...: waits for CMD, the proof that the operator processed the change,
# then for the operator to be idle
processed() {
  local what=$1 secs=$2
  shift 2
  wait_until "$what" "$secs" "$@"
  wait_until "the operator idle after: $what" "$secs" idle
}
# touched JOB: touches JOB (an annotation: a job event, no spec change) once the operator is idle
# and waits until it ran a reconcile after the touch and is idle again
touched() {
  local before
  wait_until "the operator idle" 30 idle
  before=$(metric_value petname_operator_reconcile_total)
  k annotate pntj "$1" "petname.test/touch=$RANDOM$RANDOM" --overwrite >/dev/null
  reconciled_since() { (($(metric_value petname_operator_reconcile_total) > before)) && idle; }
  wait_until "a reconcile after touching $1, then idle" 30 reconciled_since
}
# caught_up: a (re)started operator reconciled at least once and is idle: every job it listed at
# its start has been reconciled from its synced caches
caught_up() { (($(metric_value petname_operator_reconcile_total) > 0)) && idle; }

# Commands run at exit, before the namespace goes (a test's helper processes, by PID, and
# cluster-scoped objects it created).
AT_EXIT=()
cleanup() {
  local rc=$? cmd
  stop_operator KILL
  for cmd in "${AT_EXIT[@]}"; do eval "$cmd" >/dev/null 2>&1 || true; done
  "$KUBECTL" --kubeconfig "$KUBECONFIG" delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  if ((rc != 0)); then
    log "operator log (last 30 lines of $LOG_DIR/operator.log):"
    tail -n 30 "$LOG_DIR/operator.log" >&2 2>/dev/null || true
  fi
}
trap cleanup EXIT

"$KUBECTL" --kubeconfig "$KUBECONFIG" create namespace "$NS" >/dev/null

# create_job NAME REPLICAS [EXTRA_SPEC_YAML]: a PetNameTrainingJob in this namespace, with the
# labels of JOB_LABELS (a YAML flow map; none by default).
create_job() {
  k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: $1, labels: ${JOB_LABELS:-{\}}}
spec:
  replicas: $2
  image: petname:test
  dataset: {path: /data/pets.csv}
${3:-}
YAML
}

job_pods() { k get pods -l "petname.dev/job-name=$1" -o json; }
pod_count() { job_pods "$1" | jq '.items | length'; }
has_pods() { [[ $(pod_count "$1") == "$2" ]]; }
job_field() { k get pntj "$1" -o jsonpath="$2"; }
phase_is() { [[ $(job_field "$1" '{.status.phase}') == "$2" ]]; }

# set_phase POD PHASE: what a kubelet would report (Ready when Running).
set_phase() {
  local ready=False
  [[ $2 == Running ]] && ready=True
  k patch pod "$1" --subresource=status --type=merge \
    -p "{\"status\":{\"phase\":\"$2\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"$ready\"}]}}" >/dev/null
}

# fail_pod POD EXIT_CODE REASON: the trainer container terminated as a kubelet would report it.
fail_pod() {
  k patch pod "$1" --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Failed\",
    \"containerStatuses\":[{\"name\":\"trainer\",\"image\":\"petname:test\",\"imageID\":\"\",
    \"ready\":false,\"restartCount\":0,
    \"state\":{\"terminated\":{\"exitCode\":$2,\"reason\":\"$3\"}}}]}}" >/dev/null
}
# evict_pod POD: what the eviction manager reports (no container exit code).
evict_pod() {
  k patch pod "$1" --subresource=status --type=merge \
    -p '{"status":{"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory."}}' >/dev/null
}
run_all() { # JOB N: every rank Running
  local r
  for ((r = 0; r < $2; r++)); do set_phase "$1-rank-$r" Running; done
}
cond() { job_field "$1" "{.status.conditions[?(@.type==\"$2\")].$3}"; }
cond_is() { [[ $(cond "$1" "$2" status) == "$3" ]]; }
cond_reason_is() { [[ $(cond "$1" "$2" reason) == "$3" ]]; }
pod_label() { k get pod "$1" -o jsonpath="{.metadata.labels.petname\.dev/restart-generation}"; }
restarts_is() { [[ $(job_field "$1" '{.status.restarts}') == "$2" ]]; }
generation_is() { [[ $(pod_label "$1") == "$2" ]]; }
# event_reasons JOB: the reasons of the Events recorded on the job, one per line.
event_reasons() { k get events --field-selector "involvedObject.name=$1" -o json | jq -r '.items[].reason'; }
has_event() { event_reasons "$1" | grep -qx "$2"; }

# start_fault_proxy: fault_proxy.py in front of the API server, controlled through PROXY_DIR
# (its fault files; requests.log lists what it forwarded and answered); sets API_HOST (its
# address) and OP_KUBECONFIG (a kubeconfig for the operator that goes through it).
start_fault_proxy() {
  PROXY_DIR="$LOG_DIR/proxy"
  rm -rf "$PROXY_DIR"
  mkdir -p "$PROXY_DIR"
  : >"$PROXY_DIR/requests.log"
  local port pki="$PETNAME_CLUSTER_DIR/pki"
  port=$(free_port)
  python3 "$(dirname "${BASH_SOURCE[0]}")/fault_proxy.py" --port "$port" \
    --upstream "$PETNAME_APISERVER_URL" --cert "$pki/apiserver.crt" --key "$pki/apiserver.key" \
    --ca "$PETNAME_CA_FILE" --client-cert "$PETNAME_ADMIN_CERT" --client-key "$PETNAME_ADMIN_KEY" \
    --control "$PROXY_DIR" 2>>"$LOG_DIR/proxy.log" &
  AT_EXIT+=("kill $!")
  API_HOST="127.0.0.1:$port"
  wait_until "the proxy" 20 curl -fsS --max-time 2 --cacert "$PETNAME_CA_FILE" "https://$API_HOST/readyz"
  OP_KUBECONFIG="$PROXY_DIR/kubeconfig"
  sed "s#^\( *server:\).*#\1 https://$API_HOST#" "$KUBECONFIG" >"$OP_KUBECONFIG"
}

# write_bound SECONDS: the most API writes a well-behaved operator makes in SECONDS while every
# write fails (429, 5xx). A failing reconcile is re-queued after >= 25 ms * 2^k once it failed k
# times (the work queue's 50 ms base, halved by jitter), so at most F = 2 + log2(SECONDS / 25 ms)
# reconciles run; each stops at its first failing write, which one request tries at most 11
# times (10 retries). The event recorder is the only other writer: at most as many again.
write_bound() { awk -v w="$1" 'BEGIN { print 2 * 11 * int(2 + log(w * 1000 / 25) / log(2)) }'; }
