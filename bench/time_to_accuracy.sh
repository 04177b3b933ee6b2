#!/usr/bin/env bash
# Time to accuracy, the articles' criterion: runs the original recipe (bench/recipe.py) for
# --recipe-epochs epochs; its best validation loss is the target. Then runs `petname train`
# with the given settings and reports the wall-clock time (from process launch, so start-up
# and data preparation count on both sides) at which each first reaches the target, the
# ratio, and an SVG of validation loss against time (bench/plot_curves.py).
#
#   bench/time_to_accuracy.sh [--data CSV] [--recipe-epochs 10] [--out DIR] [--svg FILE]
#                             [--petname-epochs N] [--max-names N] [-- petname train flags...]
#
# Everything after `--` goes to `petname train` (e.g. --nproc 2 --threads 1 --batch-size 2048,
# --lr 0.003 --warmup-steps 50 --lr-schedule cosine); its --threads defaults to the number of
# cores. The recipe runs with 2 threads. Logs stay in --out.
set -euo pipefail
cd "$(dirname "$0")/.."

data=${PETNAME_DATA:-data/seattle_pet_licenses.csv}  # bash scripts/get-data puts it there
recipe_epochs=10
petname_epochs=""
out=""
svg=""
threads=2
max_names=0
python=/usr/bin/python3  # Debian's python3-torch

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data=$2; shift 2 ;;
    --recipe-epochs) recipe_epochs=$2; shift 2 ;;
    --petname-epochs) petname_epochs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --svg) svg=$2; shift 2 ;;
    --max-names) max_names=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) usage ;;
    *) echo "time_to_accuracy.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$recipe_epochs" =~ ^[1-9][0-9]*$ ]] ||
  { echo "time_to_accuracy.sh: --recipe-epochs must be a positive integer" >&2; exit 2; }
petname_epochs=${petname_epochs:-$recipe_epochs}
[[ "$petname_epochs" =~ ^[1-9][0-9]*$ ]] ||
  { echo "time_to_accuracy.sh: --petname-epochs must be a positive integer" >&2; exit 2; }
[ -f "$data" ] || { echo "time_to_accuracy.sh: data file $data does not exist" >&2; exit 1; }
[ -x build/bin/petname ] || { echo "time_to_accuracy.sh: build/bin/petname is not built" >&2; exit 1; }
if [ -z "$out" ]; then out=$(mktemp -d /tmp/petname-tta.XXXXXX); fi
mkdir -p "$out"
svg=${svg:-$out/time_to_accuracy.svg}
now() { date +%s.%N; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
env OMP_NUM_THREADS=$threads "$python" bench/recipe.py --data "$data" --epochs "$recipe_epochs" \
  --threads "$threads" --max-names "$max_names" >"$out/recipe.out" 2>"$out/recipe.err" ||
  { echo "time_to_accuracy.sh: recipe failed, see $out/recipe.err" >&2; exit 1; }
# seconds-since-launch, val_loss per epoch
awk -v t0="$t0" '/^epoch / {printf "%.3f %s\n", $12 - t0, $4}' "$out/recipe.out" >"$out/recipe.curve"
target=$(awk 'NR == 1 || $2 < best {best = $2} END {print best}' "$out/recipe.curve")

rm -rf "$out/ckpt"
t0=$(now)
build/bin/petname train --data "$data" --epochs "$petname_epochs" \
  --max-names "$max_names" --checkpoint-dir "$out/ckpt" --keep 1 "$@" >"$out/petname.out" 2>"$out/petname.err" ||
  { echo "time_to_accuracy.sh: petname failed, see $out/petname.err" >&2; exit 1; }
jq -r --argjson t0 "$t0" '"\(.timestamp - $t0) \(.validation_loss)"' "$out/ckpt/metrics.jsonl" \
  >"$out/petname.curve"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

first_at() { awk -v target="$target" '$2 <= target {print $1; exit}' "$1"; }
recipe_s=$(first_at "$out/recipe.curve")
petname_s=$(first_at "$out/petname.curve")
echo "target (recipe's best validation loss after $recipe_epochs epochs): $target"
echo "recipe reaches it at ${recipe_s} s"
if [ -n "$petname_s" ]; then
  echo "petname reaches it at ${petname_s} s; ratio petname/recipe $(awk -v a="$petname_s" -v b="$recipe_s" 'BEGIN {printf "%.3f", a / b}')"
else
  echo "petname did not reach it in $petname_epochs epochs (best $(awk 'NR == 1 || $2 < b {b = $2} END {print b}' "$out/petname.curve"))"
fi
"$python" bench/plot_curves.py --target "$target" --out "$svg" \
  "recipe (PyTorch, 2 threads)=$out/recipe.curve" "petname $*=$out/petname.curve"
echo "curves: $svg; logs: $out"
