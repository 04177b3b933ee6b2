#!/usr/bin/env bash
# Where petname-operator's memory and request latency go, for comparing operator binaries
# interleaved on one control plane (tests/cluster/up.sh):
#
#   bench/operator_footprint.sh [--runs N] OPERATOR...     (e.g. a saved old build and build/bin/petname-operator)
#
# Per run and binary (in turn): a fresh namespace and operator (--qps 0), one job of 16 replicas
# and then one of 256, each timed from the create request to all its pods existing in the API
# server, with the number of TCP connections the operator then holds to the API server; then 100
# jobs of 2 replicas: RSS idle and with the jobs split as /proc/PID/smaps_rollup does (anonymous
# vs file-backed), thread count, and the largest mappings by RSS. Starts its own control plane in
# a temporary directory and stops it on exit. Progress and details on stderr, a Markdown table
# on stdout.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CRD=$REPO/crds/petname.dev_petnametrainingjobs.yaml
usage() { echo "usage: bench/operator_footprint.sh [--runs N] OPERATOR..." >&2; exit 2; }
RUNS=1
if [[ ${1:-} == --runs ]]; then
  [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
  RUNS=$2
  shift 2
fi
(($#)) || usage
for op in "$@"; do [[ -x $op ]] || { echo "operator_footprint: $op is not executable" >&2; exit 2; }; done

NAME=operator_footprint
# shellcheck source=bench/operator_lib.sh
source "$REPO/bench/operator_lib.sh"
job() { # NS NAME REPLICAS
  printf 'apiVersion: petname.dev/v1alpha1\nkind: PetNameTrainingJob\nmetadata: {name: %s, namespace: %s}\nspec: {replicas: %s, image: petname:bench, dataset: {path: /data/pets.csv}}\n---\n' "$2" "$1" "$3"
}
connections() { ss -tnpH state established "dport = :$PETNAME_CLUSTER_APISERVER_PORT" | grep -c "pid=$OP_PID," || true; }
rollup() { awk '/^(Rss|Anonymous):/ { v[$1] = $2 } END { printf "%.1f %.1f", v["Rss:"] / 1024, (v["Rss:"] - v["Anonymous:"]) / 1024 }' "/proc/$OP_PID/smaps_rollup"; }
threads() { awk '/^Threads:/ { print $2 }' "/proc/$OP_PID/status"; }
top_mappings() { # the 8 largest mappings by RSS (kB)
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "" ? "[anon]" : $6) } /^Rss:/ { rss[name] += $2 } END { for (n in rss) printf "%d kB %s\n", rss[n], n }' \
    "/proc/$OP_PID/smaps" | sort -rn | head -8
}
timed_job() { # NS NAME REPLICAS -> seconds until REPLICAS pods exist
  local t0 t1
  t0=$(date +%s.%N)
  job "$1" "$2" "$3" | "$KUBECTL" create -f - >/dev/null
  until [[ $(pods "$1") -ge $3 ]]; do sleep 0.02; done
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

declare -A R=()
for run in $(seq 1 "$RUNS"); do
  i=0
  for op in "$@"; do
    i=$((i + 1))
    ns=fp-$run-$i
    "$KUBECTL" create namespace "$ns" >/dev/null
    start_operator "$op" "$ns"
    t16=$(timed_job "$ns" w16 16)
    c16=$(connections)
    t256=$(timed_job "$ns" w256 256)
    c256=$(connections)
    stop_operator
    "$KUBECTL" create namespace "$ns-many" >/dev/null
    start_operator "$op" "$ns-many"
    read -r rss_idle file_idle <<<"$(rollup)"
    th_idle=$(threads)
    for j in $(seq 1 100); do job "$ns-many" "j$j" 2; done | "$KUBECTL" create -f - >/dev/null
    until [[ $(pods "$ns-many") -ge 200 ]]; do sleep 0.2; done
    sleep 5
    read -r rss_jobs file_jobs <<<"$(rollup)"
    log "run $run $op (load $(cut -d' ' -f1 /proc/loadavg)): 16 in ${t16}s (${c16} conns), 256 in ${t256}s (${c256} conns), RSS ${rss_idle}/${rss_jobs} MB (file ${file_idle}/${file_jobs}), threads ${th_idle}/$(threads)"
    top_mappings | sed 's/^/    /' >&2
    stop_operator
    R[$i]+="| $run | $op | $(cut -d' ' -f1 /proc/loadavg) | $t16 ($c16) | $t256 ($c256) | $rss_idle ($file_idle) | $rss_jobs ($file_jobs) | $th_idle |"$'\n'
    "$KUBECTL" delete namespace "$ns" "$ns-many" --wait=false >/dev/null
  done
done

echo "| run | operator | load | 16 pods: s (conns) | 256 pods: s (conns) | RSS idle MB (file-backed) | RSS 100 jobs MB (file-backed) | threads |"
echo "|---|---|---|---|---|---|---|---|"
for i in $(seq 1 $#); do printf '%s' "${R[$i]}"; done
