#!/usr/bin/env bash
# Exposed gradient communication of the training steps on 2 Gloo CPU ranks:
# `petname train --nproc 2 --threads 1 --epochs 1 --batch-size 2048` on the full table, each
# configuration once per round, rounds interleaved; prints one line per run with samples/s,
# comm_wait_seconds (host time a rank's steps spent starting and waiting for the all-reduce,
# from --summary-json) and its share of rank 0's training time (training examples of the
# epoch / samples_per_second).
#
#   bash bench/step_comm.sh ROUNDS BINARY [BASELINE_BINARY]
#
# BASELINE_BINARY (optional): an older petname whose device step is run beside as "baseline".
# The table: $PETNAME_DATA, else data/seattle_pet_licenses.csv (bash scripts/get-data).
set -euo pipefail
rounds=${1:?rounds} bin=${2:?binary} base=${3:-}
data=${PETNAME_DATA:-$(cd "$(dirname "$0")/.." && pwd)/data/seattle_pet_licenses.csv}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # LABEL BINARY ARGS...
  local label=$1 b=$2
  shift 2
  "$b" train --data "$data" --epochs 1 --nproc 2 --threads 1 --batch-size 2048 \
    --summary-json "$out/s.json" "$@" >"$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
  python3 - "$label" "$out/s.json" "$out/log" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[2]))
examples = int(re.search(r"(\d+) training and", open(sys.argv[3]).read()).group(1))
sps, wait = s["samples_per_second"], s["comm_wait_seconds"]
train = examples / sps  # rank 0's training-step seconds (its share of the examples at its rate)
print(f"{sys.argv[1]:<32} samples/s {sps:7.0f}  comm_wait {wait:5.2f} s  "
      f"train {train:5.1f} s  share {100 * wait / train:5.2f} %")
PY
}
for r in $(seq 1 "$rounds"); do
  echo "# round $r $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  [[ -n $base ]] && run "baseline device-forest" "$base" --lstm-impl device-forest
  run "device-forest (overlap, 1 MB)" "$bin" --lstm-impl device-forest
  run "device-forest --no-overlap" "$bin" --lstm-impl device-forest --no-overlap
  run "host-forest (overlap, 1 MB)" "$bin"
done
