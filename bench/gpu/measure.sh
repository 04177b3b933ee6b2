#!/usr/bin/env bash
# The GPU measurements of docs/performance.md, in one interleaved run on one GPU machine (after
# bench/gpu/build.sh), full Seattle table:
#   1. throughput: the PyTorch recipe (bench/recipe.py --device cuda) and petname, alternating,
#      ROUNDS rounds, at batch 4096 and 16384 in fp32 (TF32) and bf16; then petname at 65536
#      and the cuDNN implementation;
#   2. time to accuracy: the recipe for 10 epochs (batch 4096, lr 1e-3), then petname with the
#      same settings and with its faster settings, each stopping at the first epoch that reaches
#      the recipe's 10-epoch validation loss (--goal, --stop-at-goal; at most 40 epochs);
#   3. GPU utilisation and memory sampled by nvidia-smi during a longer petname run.
# Raw logs go to OUT_DIR; a table is printed at the end of each part.
#
#   bash bench/gpu/measure.sh [BUILD_DIR] [OUT_DIR] [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build-gpu}/bin/petname
out=${2:-$(mktemp -d)}
rounds=${3:-2}
mkdir -p "$out"
data=data/seattle_pet_licenses.csv
export PYTHONUNBUFFERED=1

petname() {  # petname LOG ARGS...: a training run on the GPU
  local log=$1
  shift
  "$bin" train --data "$data" --device cuda "$@" >"$out/$log.out" 2>"$out/$log.err"
}
recipe() {  # recipe LOG ARGS...
  local log=$1
  shift
  python3 bench/recipe.py --data "$data" --device cuda "$@" >"$out/$log.out" 2>&1
}
# Samples/s of the last epoch of a run (the first includes CUDA start-up and graph capture).
last_sps() { grep -oE 'samples(/s|_per_s) [0-9]+' "$out/$1.out" | tail -n 1 | grep -oE '[0-9]+$'; }

echo "== 1. throughput (samples/s of the last epoch; rounds alternate recipe and petname)"
for round in $(seq "$rounds"); do
  for batch in 4096 16384; do
    recipe "recipe-$batch-r$round" --epochs 2 --batch-size "$batch"
    echo "recipe   fp32 $batch round $round: $(last_sps "recipe-$batch-r$round")"
    for prec in fp32 bf16; do
      petname "petname-$prec-$batch-r$round" --epochs 3 --batch-size "$batch" --precision "$prec"
      echo "petname  $prec $batch round $round: $(last_sps "petname-$prec-$batch-r$round")"
    done
  done
done
for prec in fp32 bf16; do
  petname "petname-$prec-65536" --epochs 4 --batch-size 65536 --precision "$prec"
  echo "petname  $prec 65536: $(last_sps "petname-$prec-65536")"
  petname "cudnn-$prec-16384" --epochs 3 --batch-size 16384 --precision "$prec" --lstm-impl cudnn
  echo "cudnn    $prec 16384: $(last_sps "cudnn-$prec-16384")"
done

echo "== 2. time to accuracy"
recipe recipe-tta --epochs 10 --batch-size 4096
target=$(grep -oE 'val_loss [0-9.]+' "$out/recipe-tta.out" | tail -n 1 | cut -d' ' -f2)
recipe_s=$(awk '/^epoch/ {for (i = 1; i < NF; i++) if ($i == "train_s") s += $(i + 1)} END {print s}' "$out/recipe-tta.out")
echo "recipe: 10 epochs, validation loss $target after ${recipe_s} s of training"
tta() {  # tta LOG ARGS...: epochs and training seconds until validation loss <= target (the run
  # stops at the first epoch that reaches it, or after 40)
  local log=$1
  shift
  petname "$log" --summary-json "$out/$log.json" --epochs 40 --goal "validationLoss=$target" \
    --stop-at-goal "$@"
  python3 - "$out/$log.out" "$target" "$out/$log.err" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("epoch ")]
target = float(sys.argv[2])
train_s = 0.0
first = None
for l in lines:
    sps = float(re.search(r"samples/s (\d+)", l).group(1))
    train_s += 289522 / sps  # the full table's training examples
    val = float(re.search(r"val_loss ([0-9.]+)", l).group(1))
    wall = float(re.search(r"elapsed ([0-9.]+)s", l).group(1))
    if first is None and val <= target:
        first = (l.split()[1], val, train_s, wall)
if first:
    print("  reaches %.4f at epoch %s (val %.4f): %.2f s of training, %.2f s since start" % (target, *first))
else:
    print("  never reaches %.4f; last: %s" % (target, lines[-1].strip() if lines else "no epochs"))
PY
}
echo "petname, recipe settings (batch 4096, lr 1e-3, fp32):"
tta tta-recipe-settings --batch-size 4096
echo "petname, batch 16384, lr 4e-3, warm-up 60 steps, bf16:"
tta tta-16384-bf16 --batch-size 16384 --lr 4e-3 --warmup-steps 60 --precision bf16
echo "petname, batch 16384, lr 4e-3, warm-up 60 steps, fp32:"
tta tta-16384-fp32 --batch-size 16384 --lr 4e-3 --warmup-steps 60

echo "== 3. utilisation (nvidia-smi every 100 ms during 40 epochs at batch 16384, bf16)"
nvidia-smi --query-gpu=utilization.gpu,memory.used,power.draw --format=csv,noheader,nounits \
  -lms 100 >"$out/smi.csv" &
smi=$!
petname util --epochs 40 --batch-size 16384 --precision bf16
kill $smi
last_sps util | sed 's/^/petname bf16 16384, last epoch samples\/s: /'
sort -t, -k1 -n "$out/smi.csv" | awk -F, '$1 > 0 {n++; u += $1; m = ($2 > m ? $2 : m); p += $3}
  END {if (n) printf "busy samples %d: mean utilisation %.0f %%, peak memory %d MiB, mean power %.0f W\n", n, u / n, m, p / n}'
