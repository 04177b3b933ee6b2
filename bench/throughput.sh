#!/usr/bin/env bash
# Alternates the original PyTorch recipe (bench/recipe.py, Debian's python3-torch) and
# `petname train` on the same data, batch size and thread count, and reports per-run
# figures, the medians and the ratio petname/recipe. Peak RSS comes from /usr/bin/time -v.
# Runs interleave (recipe, petname, recipe, petname, ...) so that background load hits
# both sides alike. Logs of every run are kept in --out.
#
#   bench/throughput.sh [--data CSV] [--runs 3] [--epochs 1] [--batch 4096] [--threads 2]
#                       [--precision fp32|bf16] [--max-names N] [--petname PATH] [--out DIR]
#                       [--variant 'LABEL=petname train flags']...
#
# Each --variant adds a petname configuration to every round (after the recipe), with its
# flags appended to the common ones (--data --epochs --max-names); without --variant the
# one variant is "petname" with --batch-size, --threads and --precision as given. Example:
# --variant 'fp32x1=--threads 2' --variant 'fp32x2=--nproc 2 --threads 1 --batch-size 2048'
# (--batch-size is per rank, so 2 x 2048 keeps the global batch at 4096).
set -euo pipefail
cd "$(dirname "$0")/.."

data=${PETNAME_DATA:-data/seattle_pet_licenses.csv}  # bash scripts/get-data puts it there
runs=3
epochs=1
batch=4096
threads=2
precision=fp32
max_names=0
petname=build/bin/petname
out=""
variants=()
python=/usr/bin/python3  # Debian's python3-torch; the python3 first on PATH may be another

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data=$2 ;;
    --runs) runs=$2 ;;
    --epochs) epochs=$2 ;;
    --batch) batch=$2 ;;
    --threads) threads=$2 ;;
    --precision) precision=$2 ;;
    --max-names) max_names=$2 ;;
    --petname) petname=$2 ;;
    --out) out=$2 ;;
    --variant) variants+=("$2") ;;
    -h | --help) usage ;;
    *) echo "throughput.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2 || { echo "throughput.sh: $1 needs a value" >&2; exit 2; }
done
for n in "$runs" "$epochs" "$batch" "$threads"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "throughput.sh: '$n' is not a positive integer" >&2; exit 2; }
done
[ -f "$data" ] || { echo "throughput.sh: data file $data does not exist" >&2; exit 1; }
[ -x "$petname" ] || { echo "throughput.sh: $petname is not built (bash scripts/build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "throughput.sh: /usr/bin/time is missing (bash scripts/setup)" >&2; exit 1; }
if [ -z "$out" ]; then out=$(mktemp -d /tmp/petname-bench.XXXXXX); fi
if [ ${#variants[@]} -eq 0 ]; then
  variants=("petname=--batch-size $batch --threads $threads --precision $precision")
fi
for variant in "${variants[@]}"; do
  [[ "$variant" == *=* && "${variant%%=*}" =~ ^[A-Za-z0-9_.-]+$ ]] ||
    { echo "throughput.sh: --variant wants LABEL=FLAGS with a plain label, got '$variant'" >&2; exit 2; }
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$out"

# Peak RSS in MB from a /usr/bin/time -v log.
rss_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }

# Recipe figures: samples/s over all epochs (examples * epochs / training seconds), last val_loss.
recipe_figures() {
  awk '/^names / {examples = $4} /^epoch / {s += $6; e++; loss = $4}
       END {printf "%.0f %s", examples * e / s, loss}' "$1"
}

printf '%-4s %-8s %12s %10s %12s\n' run side samples/s val_loss peak_rss_mb
rows=()
for run in $(seq 1 "$runs"); do
  log="$out/recipe-$run"
  env OMP_NUM_THREADS="$threads" /usr/bin/time -v -o "$log.time" \
    "$python" bench/recipe.py --data "$data" --epochs "$epochs" --batch-size "$batch" \
    --threads "$threads" --max-names "$max_names" >"$log.out" 2>"$log.err" ||
    { echo "throughput.sh: recipe run $run failed, see $log.err" >&2; exit 1; }
  read -r sps loss <<<"$(recipe_figures "$log.out")"
  rows+=("recipe $sps $loss $(rss_mb "$log.time")")
  printf '%-4s %-8s %12s %10s %12s\n' "$run" recipe "$sps" "$loss" "$(rss_mb "$log.time")"

  for variant in "${variants[@]}"; do
    label=${variant%%=*}
    read -ra flags <<<"${variant#*=}"
    log="$out/$label-$run"
    env OMP_NUM_THREADS="$threads" /usr/bin/time -v -o "$log.time" \
      "$petname" train --data "$data" --epochs "$epochs" --max-names "$max_names" "${flags[@]}" \
      --summary-json "$log.json" >"$log.out" 2>"$log.err" ||
      { echo "throughput.sh: $label run $run failed, see $log.err" >&2; exit 1; }
    sps=$(jq -r '.samples_per_second | floor' "$log.json")
    loss=$(jq -r '.val_loss * 10000 | round / 10000' "$log.json")
    rows+=("$label $sps $loss $(rss_mb "$log.time")")
    printf '%-4s %-8s %12s %10s %12s\n' "$run" "$label" "$sps" "$loss" "$(rss_mb "$log.time")"
  done
done

# Medians per side and the ratio of the samples/s medians.
printf '%s\n' "${rows[@]}" | awk -v runs="$runs" -v epochs="$epochs" -v out="$out" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {t = a[j]; a[j] = a[j - 1]; a[j - 1] = t}
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {k = $1; n[k]++; s[k, n[k]] = $2; l[k, n[k]] = $3; r[k, n[k]] = $4}
  END {
    for (k in n) {
      for (i = 1; i <= n[k]; i++) {a[i] = s[k, i]; b[i] = l[k, i]; c[i] = r[k, i]}
      ms[k] = median(a, n[k]); ml[k] = median(b, n[k]); mr[k] = median(c, n[k])
      printf "median %-8s samples/s %.0f  val_loss %.4f  peak_rss_mb %.0f  (%d runs, %d epochs)\n", k, ms[k], ml[k], mr[k], n[k], epochs
    }
    for (k in n) if (k != "recipe") {
      printf "ratio %s/recipe samples/s %.2f  val_loss %+.1f%%\n", k, ms[k] / ms["recipe"], 100 * (ml[k] / ml["recipe"] - 1)
    }
    printf "logs %s\n", out
  }'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
