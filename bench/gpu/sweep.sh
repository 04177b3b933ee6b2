#!/usr/bin/env bash
# Training throughput of petname on a GPU over batch sizes, precisions, LSTM implementations
# and summation modes (docs/tasks/gpu-job.md), full Seattle table: one line per run with the samples/s of
# the last epoch (the first includes graph capture) and the summary's overall figure. MODES are
# `default` and `deterministic` (--deterministic: gradient sums in a fixed order). Each run's
# output and summary stay in OUT_DIR (default: a new temporary folder, printed last); exit 1 when
# a run failed.
#
#   bash bench/gpu/sweep.sh [BUILD_DIR] [EPOCHS] [BATCHES] [PRECISIONS] [IMPLS] [OUT_DIR] [MODES]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build-gpu}/bin/petname
epochs=${2:-4}
out=${6:-$(mktemp -d)}
mkdir -p "$out"
failed=0
printf '%-14s %-13s %-5s %7s %14s %14s\n' impl mode prec batch last_epoch_sps run_sps
for impl in ${5:-device-forest cudnn}; do
  for mode in ${7:-default deterministic}; do
    extra=()
    [[ $mode == deterministic ]] && extra=(--deterministic)
    for prec in ${4:-fp32 bf16}; do
      for batch in ${3:-4096 16384 65536}; do
        log=$out/$impl-$mode-$prec-$batch
        "$bin" train --data data/seattle_pet_licenses.csv --device cuda --epochs "$epochs" \
          --batch-size "$batch" --precision "$prec" --lstm-impl "$impl" "${extra[@]}" \
          --summary-json "$log.json" >"$log.out" 2>"$log.err" || {
          tail -n 3 "$log.err"
          failed=1
          continue
        }
        last=$(grep -o 'samples/s [0-9]*' "$log.out" | tail -n 1 | cut -d' ' -f2)
        run=$(python3 -c "import json;print(round(json.load(open('$log.json'))['samples_per_second']))")
        printf '%-14s %-13s %-5s %7s %14s %14s\n' "$impl" "$mode" "$prec" "$batch" "$last" "$run"
        grep -h 'device step' "$log.err" | sed 's/^/    /'
      done
    done
  done
done
echo "sweep: runs logged in $out"
exit $failed
