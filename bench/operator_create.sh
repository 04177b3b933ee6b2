#!/usr/bin/env bash
# Benchmarks petname-operator against a real control plane (tests/cluster/up.sh):
#   1. time from creating a 256-replica PetNameTrainingJob to all 256 pods existing in the API
#      server, with a client-side limit (--qps 20 --burst 30, Kubeflow's and the old default) and
#      with the default (--qps 0: no client-side limit; the API server's Priority and Fairness
#      does flow control);
#   2. operator RSS idle (no jobs) and with 100 jobs (2 replicas each, 200 pods);
#   3. operator CPU use while idle with those 100 jobs (over IDLE_SECONDS, default 30).
#
#   bench/operator_create.sh [BUILD_DIR]      (default build/; needs build/bin/petname-operator)
#
# Starts its own control plane in a temporary directory and stops it on exit. Prints a Markdown
# table on stdout; progress goes to stderr.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$REPO/build}
OPERATOR=$BUILD/bin/petname-operator
CRD=${PETNAME_CRD:-$REPO/crds/petname.dev_petnametrainingjobs.yaml}
IDLE_SECONDS=${IDLE_SECONDS:-30}
[[ -x $OPERATOR ]] || { echo "operator_create: $OPERATOR not built" >&2; exit 2; }
[[ -f $CRD ]] || { echo "operator_create: CRD $CRD missing" >&2; exit 2; }

NAME=operator_create
# shellcheck source=bench/operator_lib.sh
source "$REPO/bench/operator_lib.sh"

rss_mb() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$OP_PID/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$OP_PID/stat"; }

job() { # NS NAME REPLICAS
  cat <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: $2, namespace: $1}
spec: {replicas: $3, image: petname:bench, dataset: {path: /data/pets.csv}}
YAML
}

create_256() { # NS FLAGS... -> seconds until 256 pods exist
  local ns=$1
  shift
  "$KUBECTL" create namespace "$ns" >/dev/null
  start_operator "$OPERATOR" "$ns" "$@"
  local t0 t1
  t0=$(date +%s.%N)
  job "$ns" big 256 | "$KUBECTL" create -f - >/dev/null
  until [[ $(pods "$ns") -ge 256 ]]; do sleep 0.05; done
  t1=$(date +%s.%N)
  stop_operator
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

log "256 replicas, client-side limit (qps 20, burst 30)"
t_default=$(create_256 bench-default --qps 20 --burst 30)
log "256 replicas, default (qps 0: no client-side limit)"
t_lifted=$(create_256 bench-lifted --workers 4)

"$KUBECTL" create namespace bench-many >/dev/null
start_operator "$OPERATOR" bench-many --qps 0
rss_idle=$(rss_mb)
log "100 jobs x 2 replicas"
for i in $(seq 1 100); do job bench-many "j$i" 2; echo ---; done | "$KUBECTL" create -f - >/dev/null
until [[ $(pods bench-many) -ge 200 ]]; do sleep 0.2; done
sleep 5
rss_jobs=$(rss_mb)
log "idle CPU over ${IDLE_SECONDS}s"
c0=$(cpu_ticks)
sleep "$IDLE_SECONDS"
c1=$(cpu_ticks)
cpu_pct=$(awk -v d="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" -v s="$IDLE_SECONDS" \
  'BEGIN { printf "%.2f", d * 100 / hz / s }')
stop_operator

cat <<EOF_TABLE
| measurement | result |
|---|---|
| 256-replica job, create -> 256 pods in the API server, --qps 20 --burst 30 | ${t_default} s |
| 256-replica job, create -> 256 pods in the API server, default (--qps 0) | ${t_lifted} s |
| operator RSS, idle (no jobs, caches synced) | ${rss_idle} MB |
| operator RSS with 100 jobs (200 pods, 100 services) | ${rss_jobs} MB |
| operator CPU while idle with 100 jobs (${IDLE_SECONDS} s) | ${cpu_pct} % of one core |
EOF_TABLE
