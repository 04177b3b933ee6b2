#!/usr/bin/env bash
# A rank in a pod-sized cgroup: `petname train` inside a cgroup v1 `cpu` child with a CFS quota
# of QUOTA CPUs (default 1), with the default threads (chosen from the CPU budget,
# trainer/launch/cpu_budget.h), with --threads 1, and with --threads $(nproc) (what the default
# was before: the node's core count). Interleaved rounds, medians of samples/s, ratios against
# --threads 1 measured in the same run. With BUSY=1 one busy loop per core runs outside the
# cgroup, as other pods on a full node would.
#
#   bench/cpu_quota.sh [BUILD_DIR] [ROUNDS]      (default build/, 3 rounds; needs root and cgroup v1)
#
# Env: QUOTA (CPUs, default 1), MAX_NAMES (default 20000), PETNAME_DATA. Prints a Markdown table.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$REPO/build}
ROUNDS=${2:-3}
QUOTA=${QUOTA:-1}
MAX_NAMES=${MAX_NAMES:-20000}
DATA=${PETNAME_DATA:-$REPO/data/seattle_pet_licenses.csv}
PETNAME=$BUILD/bin/petname
[[ -x $PETNAME ]] || { echo "cpu_quota: $PETNAME not built" >&2; exit 2; }
own=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' /proc/self/cgroup)
mount=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ {print $5; exit}' /proc/self/mountinfo)
[[ -n $mount && -n $own ]] || { echo "cpu_quota: no cgroup v1 cpu controller" >&2; exit 2; }
CG=$mount${own%/}/petname-bench-$$
WORK=$(mktemp -d)
busy=()
cleanup() {
  ((${#busy[@]})) && kill "${busy[@]}" 2>/dev/null
  rmdir "$CG" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$CG"
echo 100000 >"$CG/cpu.cfs_period_us"
awk -v q="$QUOTA" 'BEGIN { printf "%d\n", q * 100000 }' >"$CG/cpu.cfs_quota_us"
if [[ ${BUSY:-0} == 1 ]]; then
  for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    busy+=($!)
  done
fi

run() { # NAME ROUND FLAGS... -> samples/s of one epoch, inside the cgroup
  local out=$WORK/$1.$2.json log=$WORK/$1.$2.log
  shift 2
  sh -c 'echo $$ > "$0" && exec "$@"' "$CG/cgroup.procs" "$PETNAME" train --data "$DATA" \
    --max-names "$MAX_NAMES" --epochs 1 --summary-json "$out" "$@" >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_second"])' "$out"
}

declare -A results
for round in $(seq "$ROUNDS"); do
  for cfg in default one cores; do
    case $cfg in
      default) flags=() ;;
      one) flags=(--threads 1) ;;
      cores) flags=(--threads "$(nproc)") ;;
    esac
    s=$(run "$cfg" "$round" "${flags[@]}")
    echo "round $round $cfg: $s samples/s" >&2
    results[$cfg]+="$s "
  done
done
chosen=$(grep -o 'threads: [0-9]* intra-op' "$WORK/default.1.log" || true)
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(median "${results[one]}")
echo "| threads ($QUOTA-CPU quota, $(nproc) cores, busy=${BUSY:-0}) | samples/s (median of $ROUNDS) | vs --threads 1 |"
echo "|---|---|---|"
for cfg in default one cores; do
  m=$(median "${results[$cfg]}")
  label=$cfg
  [[ $cfg == default ]] && label="default (${chosen#threads: } threads)"
  [[ $cfg == one ]] && label="--threads 1"
  [[ $cfg == cores ]] && label="--threads $(nproc) (the old default)"
  awk -v l="$label" -v m="$m" -v b="$base" 'BEGIN { printf "| %s | %.0f | %.2fx |\n", l, m, m / b }'
done
