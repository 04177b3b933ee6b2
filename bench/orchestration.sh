#!/usr/bin/env bash
# Orchestration benchmark: petname-operator against Kubeflow's training-operator (PyTorchJob
# controller) on the same real control plane (tests/cluster/up.sh), interleaved runs.
#
#   bench/orchestration.sh [--runs N] [--smoke] [BUILD_DIR]
#
# BUILD_DIR (default build/) holds bin/petname-operator; Kubeflow's binary and PyTorchJob CRD come
# from bench/kubeflow/build.sh's cache. Per run, for default client limits and for limits lifted,
# each operator in turn (order alternates between runs) is started, waited for until ready, and
# timed on jobs of SIZES workers (default "1 16 256"): from the create request to all N pods
# existing in the API server (and to its services too). Then each operator, at default limits,
# gets MANY_JOBS jobs of 2 workers (default 100): RSS before and after, CPU seconds
# (utime + stime from /proc/PID/stat) from the first create until all their pods and services
# exist and stayed unchanged for 3 s.
#
# A job of N workers: ours replicas N; theirs a PyTorchJob with Master 1 + Worker N-1 (N pods).
# Every measurement uses a fresh namespace, deleted (and waited for) afterwards. Pods are counted
# from a watch on that namespace opened before the create (ADDED events), services by polling
# (`limit=1` + remainingItemCount), the same way for both operators.
#
# Kubeflow without webhooks: its cert rotator needs the Secret kubeflow/training-operator-webhook-cert
# (created empty here) and waits for the certificate files under the hard-coded
# /tmp/k8s-webhook-server/serving-certs, which a kubelet would mount from that Secret; this script
# copies them there. No ValidatingWebhookConfiguration is registered, so the API server never
# calls its webhook (the rotator logs "Webhook not found" and carries on). No gang scheduler.
#
# Options: --runs N (default 3), --smoke (1 run, SIZES=1, MANY_JOBS=2; exits 77 when the Kubeflow
# binary or the control-plane binaries are not cached). Env: SIZES, MANY_JOBS, KUBEFLOW_VERSION,
# PETNAME_CACHE, PETNAME_OPERATOR (default BUILD_DIR/bin/petname-operator).
# Starts its own control plane in a temporary directory; every process it starts is stopped on
# exit (operators also by parent-death signal, the cluster by the up.sh watchdog).
# Prints the machine, load and a Markdown table on stdout; progress and per-run figures on stderr.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/cluster/env.sh
source "$REPO/tests/cluster/env.sh"
# shellcheck source-path=SCRIPTDIR source=../tests/support/ports.sh
source "$REPO/tests/support/ports.sh"

usage() { echo "usage: bench/orchestration.sh [--runs N] [--smoke] [BUILD_DIR]" >&2; exit 2; }
RUNS=3 SMOKE=0 BUILD=$REPO/build
while (($#)); do
  case $1 in
    --runs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; RUNS=$2; shift 2 ;;
    --smoke) SMOKE=1; shift ;;
    -*) usage ;;
    *) BUILD=$1; shift ;;
  esac
done
KUBEFLOW_VERSION=${KUBEFLOW_VERSION:-v1.9.4}
SIZES=${SIZES:-1 16 256}
MANY_JOBS=${MANY_JOBS:-100}
if ((SMOKE)); then RUNS=1 SIZES=1 MANY_JOBS=2; fi
OURS=${PETNAME_OPERATOR:-$BUILD/bin/petname-operator}
OUR_CRD=$REPO/crds/petname.dev_petnametrainingjobs.yaml
KF_DIR=$PETNAME_CACHE/kubeflow/$KUBEFLOW_VERSION
THEIRS=$KF_DIR/training-operator
THEIR_CRD=$KF_DIR/kubeflow.org_pytorchjobs.yaml
KF_CERTS_ROOT=/tmp/k8s-webhook-server
KF_CERTS=$KF_CERTS_ROOT/serving-certs

log() { printf '[orchestration] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
[[ -x $OURS ]] || { log "ERROR: $OURS not built (PETNAME_JOBS=1 bash scripts/build)"; exit 2; }
if [[ ! -x $THEIRS || ! -s $THEIR_CRD ]] || ! "$REPO/tests/cluster/build.sh" --check; then
  ((SMOKE)) && { log "skipped: Kubeflow $KUBEFLOW_VERSION or the control plane is not cached"; exit 77; }
  [[ -x $THEIRS && -s $THEIR_CRD ]] || { log "ERROR: $THEIRS missing: run bench/kubeflow/build.sh"; exit 2; }
fi

DIR=$(mktemp -d /tmp/petname-bench-orchestration.XXXXXX)
RESULTS=$DIR/results.tsv
OP_PID="" WATCH_PID=""
OWN_CERTS="" CERTS_MOUNTED=0
cleanup() {
  stop_op
  [[ -z $WATCH_PID ]] || kill "$WATCH_PID" 2>/dev/null || true
  "$REPO/tests/cluster/down.sh" "$DIR/cluster" --purge >&2 || true
  [[ -n $OWN_CERTS ]] && rm -rf "$OWN_CERTS"
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

api() { curl -fsS --max-time 30 --cacert "$PETNAME_CA_FILE" --cert "$PETNAME_ADMIN_CERT" --key "$PETNAME_ADMIN_KEY" "$@"; }
count() { # RESOURCE NS: how many exist (one cheap request: limit=1 + remainingItemCount)
  api "$PETNAME_APISERVER_URL/api/v1/namespaces/$2/$1?limit=1" | jq '(.items | length) + (.metadata.remainingItemCount // 0)'
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# ---- operators ------------------------------------------------------------------------------
# start_op WHICH LIMITS: starts ours|theirs at default|lifted client limits and waits until it is
# ready (ours: /readyz, i.e. caches synced; theirs: /readyz and its PyTorchJob workers started).
# Runs in the main shell (sets OP_PID); the operator gets SIGKILL if this script dies.
start_op() {
  local which=$1 limits=$2 probe
  probe=$(free_port)
  OP_LOG=$DIR/$which-$limits.log
  : >"$OP_LOG"
  if [[ $which == ours ]]; then
    local args=(--kubeconfig "$KUBECONFIG" --health-probe-bind-address "127.0.0.1:$probe"
      --metrics-bind-address 0 --log-level info)
    [[ $limits == lifted ]] && args+=(--qps 0 --workers 4)
    setpriv --pdeathsig KILL -- "$OURS" "${args[@]}" >>"$OP_LOG" 2>&1 &
  else
    local args=(--enable-scheme=pytorchjob --leader-elect=false --metrics-bind-address 0
      --health-probe-bind-address "127.0.0.1:$probe" --webhook-server-port "$(free_port)")
    [[ $limits == lifted ]] && args+=(--kube-api-qps 1000000 --kube-api-burst 1000000)
    MY_POD_NAMESPACE=kubeflow setpriv --pdeathsig KILL -- "$THEIRS" "${args[@]}" >>"$OP_LOG" 2>&1 &
  fi
  OP_PID=$!
  local deadline=$((SECONDS + 120))
  until curl -fsS --max-time 2 "http://127.0.0.1:$probe/readyz" >/dev/null 2>&1 &&
    { [[ $which == ours ]] || grep -q 'Starting workers.*pytorchjob' "$OP_LOG"; }; do
    [[ $which == theirs ]] && mount_kubeflow_certs
    if ! kill -0 "$OP_PID" 2>/dev/null || ((SECONDS > deadline)); then
      tail -n 20 "$OP_LOG" >&2
      die "$which operator did not become ready (log above)"
    fi
    sleep 0.2
  done
  sleep 1
}
stop_op() {
  [[ -n $OP_PID ]] || return 0
  kill -TERM "$OP_PID" 2>/dev/null || true
  local deadline=$((SECONDS + 15))
  while kill -0 "$OP_PID" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  kill -KILL "$OP_PID" 2>/dev/null || true
  wait "$OP_PID" 2>/dev/null || true
  OP_PID=""
}
# What a kubelet would do for Kubeflow's pod: put the rotator's certificate where it waits for it.
mount_kubeflow_certs() {
  ((CERTS_MOUNTED)) && return 0
  local data
  data=$(api "$PETNAME_APISERVER_URL/api/v1/namespaces/kubeflow/secrets/training-operator-webhook-cert" | jq -c .data)
  [[ $(jq -r '."tls.crt" // empty' <<<"$data") ]] || return 0
  if [[ ! -e $KF_CERTS_ROOT ]]; then OWN_CERTS=$KF_CERTS_ROOT; elif [[ ! -e $KF_CERTS ]]; then OWN_CERTS=$KF_CERTS; fi
  (
    umask 077
    mkdir -p "$KF_CERTS"
    local f
    for f in tls.crt tls.key ca.crt; do jq -r --arg f "$f" '.[$f]' <<<"$data" | base64 -d >"$KF_CERTS/$f.tmp"; done
    for f in tls.key ca.crt tls.crt; do mv -f "$KF_CERTS/$f.tmp" "$KF_CERTS/$f"; done
  )
  CERTS_MOUNTED=1
}
ticks() { awk '{ print $14 + $15 }' "/proc/$OP_PID/stat"; }
rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$OP_PID/status"; }

# ---- jobs -----------------------------------------------------------------------------------
create_job() { # WHICH NS NAME WORKERS
  local which=$1 ns=$2 name=$3 n=$4 body path
  if [[ $which == ours ]]; then
    path=/apis/petname.dev/v1alpha1/namespaces/$ns/petnametrainingjobs
    body=$(jq -nc --arg ns "$ns" --arg name "$name" --argjson n "$n" '{apiVersion: "petname.dev/v1alpha1",
      kind: "PetNameTrainingJob", metadata: {name: $name, namespace: $ns},
      spec: {replicas: $n, image: "petname:bench", dataset: {path: "/data/pets.csv"}}}')
  else
    path=/apis/kubeflow.org/v1/namespaces/$ns/pytorchjobs
    body=$(jq -nc --arg ns "$ns" --arg name "$name" --argjson n "$n" '
      def replica($r): {replicas: $r, restartPolicy: "Never", template: {spec: {containers: [
        {name: "pytorch", image: "petname:bench", command: ["petname", "train"]}]}}};
      {apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: {name: $name, namespace: $ns},
       spec: {pytorchReplicaSpecs: ({Master: replica(1)} + (if $n > 1 then {Worker: replica($n - 1)} else {} end))}}')
  fi
  api -X POST -H 'Content-Type: application/json' --data-binary "$body" "$PETNAME_APISERVER_URL$path" >/dev/null
}

# watch_pods NS: opens a watch on NS's pods before the create (a watch without resourceVersion
# also lists what exists, so no pod is missed); settle reads it from WATCH_FD. One long request
# instead of a poll: the measuring takes next to no CPU from the operator and API server measured.
watch_pods() {
  exec {WATCH_FD}< <(exec curl -fsSN --max-time 600 --cacert "$PETNAME_CA_FILE" --cert "$PETNAME_ADMIN_CERT" \
    --key "$PETNAME_ADMIN_KEY" "$PETNAME_APISERVER_URL/api/v1/namespaces/$1/pods?watch=1")
  WATCH_PID=$!
}
unwatch_pods() {
  kill "$WATCH_PID" 2>/dev/null || true
  exec {WATCH_FD}<&-
}

# settle NS PODS T0: waits until the watch saw PODS pods added, then until NS's services stop
# changing for 3 s; prints "seconds-to-pods seconds-to-all pods services" (seconds since T0).
settle() {
  local ns=$1 want=$2 t0=$3 deadline=$((SECONDS + 600)) t_pods t_last svc last=-1 quiet seen
  seen=$(grep -c -m "$want" '^{"type":"ADDED"' <&"$WATCH_FD" || true)
  t_pods=$(now)
  ((seen >= want)) || die "$ns: $want pods did not appear within 600 s (the watch saw $seen)"
  t_last=$t_pods
  quiet=$((SECONDS + 3))
  while ((SECONDS < quiet)); do
    svc=$(count services "$ns")
    if ((svc != last)); then
      ((last < 0)) || t_last=$(now)
      last=$svc
      quiet=$((SECONDS + 3))
    fi
    ((SECONDS < deadline)) || die "$ns: services still changing after 600 s"
    sleep 0.1
  done
  echo "$(since "$t0" "$t_pods") $(since "$t0" "$t_last") $(count pods "$ns") $svc"
}

record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }  # RUN KEY VALUE

measure_create() { # RUN WHICH LIMITS SIZE
  local run=$1 which=$2 limits=$3 n=$4 ns="c-$2-$3-$4-r$1" t0 out t_pods t_all pods svc
  "$KUBECTL" create namespace "$ns" >/dev/null
  watch_pods "$ns"
  t0=$(now)
  create_job "$which" "$ns" job "$n"
  out=$(settle "$ns" "$n" "$t0")
  unwatch_pods
  read -r t_pods t_all pods svc <<<"$out"
  log "run $run $which $limits $n workers: pods after $t_pods s, all objects after $t_all s ($pods pods, $svc services)"
  record "$run" "pods|$which|$limits|$n" "$t_pods"
  record "$run" "all|$which|$limits|$n" "$t_all"
  record "$run" "objects|$which|$n" "$pods pods + $svc services"
  "$KUBECTL" delete namespace "$ns" --wait=true --timeout=300s >/dev/null
}

measure_many() { # RUN WHICH
  local run=$1 which=$2 ns="m-$2-r$1" c0 c1 t0 out i pods svc
  "$KUBECTL" create namespace "$ns" >/dev/null
  start_op "$which" default
  record "$run" "rss_idle|$which" "$(rss_mb)"
  watch_pods "$ns"
  c0=$(ticks)
  t0=$(now)
  for i in $(seq 1 "$MANY_JOBS"); do create_job "$which" "$ns" "j$i" 2; done
  out=$(settle "$ns" $((2 * MANY_JOBS)) "$t0")
  unwatch_pods
  c1=$(ticks)
  record "$run" "rss_jobs|$which" "$(rss_mb)"
  record "$run" "cpu|$which" "$(awk -v d="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v j="$MANY_JOBS" \
    'BEGIN { printf "%.2f", d / hz * 100 / j }')"
  read -r _ _ pods svc <<<"$out"
  record "$run" "many_objects|$which" "$pods pods + $svc services"
  log "run $run $which $MANY_JOBS jobs: $out; RSS $(rss_mb) MB, CPU $((c1 - c0)) ticks"
  stop_op
  "$KUBECTL" delete namespace "$ns" --wait=true --timeout=300s >/dev/null
}

# ---- main -----------------------------------------------------------------------------------
START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
START_LOAD=$(uptime | sed 's/.*load average: //')
PETNAME_CLUSTER_OWNER_PID=$$ "$REPO/tests/cluster/up.sh" "$DIR/cluster" >/dev/null
# shellcheck source=/dev/null
source "$DIR/cluster/cluster.env"
"$KUBECTL" apply -f "$OUR_CRD" >/dev/null
"$KUBECTL" create -f "$THEIR_CRD" >/dev/null  # too large for apply's last-applied annotation
for crd in petnametrainingjobs.petname.dev pytorchjobs.kubeflow.org; do
  deadline=$((SECONDS + 60))
  until [[ $("$KUBECTL" get crd "$crd" -o 'jsonpath={.status.conditions[?(@.type=="Established")].status}' 2>/dev/null) == True ]]; do
    ((SECONDS < deadline)) || die "CRD $crd not established after 60 s"
    sleep 0.2
  done
done
"$KUBECTL" create namespace kubeflow >/dev/null
"$KUBECTL" -n kubeflow create secret generic training-operator-webhook-cert >/dev/null

for run in $(seq 1 "$RUNS"); do
  if ((run % 2)); then order=(ours theirs); else order=(theirs ours); fi
  record "$run" load "$(uptime | sed 's/.*load average: //')"
  log "run $run/$RUNS (order: ${order[*]}; load $(uptime | sed 's/.*load average: //'))"
  for limits in default lifted; do
    for which in "${order[@]}"; do
      start_op "$which" "$limits"
      for n in $SIZES; do measure_create "$run" "$which" "$limits" "$n"; done
      stop_op
    done
  done
  for which in "${order[@]}"; do measure_many "$run" "$which"; done
done

# ---- report ---------------------------------------------------------------------------------
# cell KEY: "median (run1, run2, ...)" of a numeric key
cell() {
  awk -F'\t' -v k="$1" '$2 == k { v[++n] = $3 } END {
    if (n == 0) { print "-"; exit }
    s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") v[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    printf "%s (%s)", m, s }' "$RESULTS"
}
median() { cell "$1" | awk '{ print $1 }'; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
first() { awk -F'\t' -v k="$1" '$2 == k { print $3; exit }' "$RESULTS"; }

echo "Machine: $(nproc) cores, $(uname -r), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
echo "Date: $START_DATE to $(date -u '+%H:%M UTC'); load average at start $START_LOAD, per run: $(awk -F'\t' '$2 == "load" { printf "%s[%s] ", $1, $3 }' "$RESULTS")"
echo "Control plane: Kubernetes $K8S_VERSION (tests/cluster/up.sh); Kubeflow training-operator $KUBEFLOW_VERSION; $RUNS interleaved run(s)"
echo
echo "| measurement | petname-operator | Kubeflow training-operator | Kubeflow / petname |"
echo "|---|---|---|---|"
for limits in default lifted; do
  for n in $SIZES; do
    echo "| $n workers, create -> all pods exist, $limits limits (s) | $(cell "pods|ours|$limits|$n") | $(cell "pods|theirs|$limits|$n") | $(ratio "pods|theirs|$limits|$n" "pods|ours|$limits|$n") |"
  done
  for n in $SIZES; do
    echo "| $n workers, create -> all pods and services exist, $limits limits (s) | $(cell "all|ours|$limits|$n") | $(cell "all|theirs|$limits|$n") | $(ratio "all|theirs|$limits|$n" "all|ours|$limits|$n") |"
  done
done
for n in $SIZES; do
  echo "| objects created for $n workers | $(first "objects|ours|$n") | $(first "objects|theirs|$n") | |"
done
echo "| RSS idle, caches synced (MB) | $(cell "rss_idle|ours") | $(cell "rss_idle|theirs") | $(ratio "rss_idle|theirs" "rss_idle|ours") |"
echo "| RSS with $MANY_JOBS jobs of 2 workers (MB) | $(cell "rss_jobs|ours") | $(cell "rss_jobs|theirs") | $(ratio "rss_jobs|theirs" "rss_jobs|ours") |"
echo "| CPU seconds per 100 jobs of 2 workers, default limits | $(cell "cpu|ours") | $(cell "cpu|theirs") | $(ratio "cpu|theirs" "cpu|ours") |"
echo "| objects for $MANY_JOBS jobs | $(first "many_objects|ours") | $(first "many_objects|theirs") | |"
