#!/usr/bin/env bash
# Checks petname's CUDA path on a GPU machine (docs/gpu.md): the same loss trace as the CPU on
# a small run, NCCL at world size 1 with its metrics, SIGTERM -> checkpoint -> resume on CUDA
# against an uninterrupted run, and checkpoints crossing between CPU and CUDA. Run after
# bench/gpu/build.sh; prints one line per check and "checks failed: N" at the end.
#
#   bash bench/gpu/check.sh [BUILD_DIR] [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build-gpu}/bin/petname
out=${2:-$(mktemp -d)}
mkdir -p "$out"
data=data/seattle_pet_licenses.csv
failed=0
check() {  # check NAME COMMAND...: runs the command, reports ok/FAILED
  local name=$1
  shift
  if "$@" >"$out/$name.log" 2>&1; then echo "ok      $name"; else echo "FAILED  $name (see $out/$name.log)"; tail -n 5 "$out/$name.log"; failed=$((failed + 1)); fi
}
small=(train --data "$data" --max-names 3000 --epochs 2 --batch-size 1024 --seed 7)
losses() { grep -o 'train_loss [0-9.]*  val_loss [0-9.]*' "$1"; }

check cpu_reference "$bin" "${small[@]}" --device cpu
for impl in device-forest cudnn; do
  check "cuda_$impl" "$bin" "${small[@]}" --device cuda --no-tf32 --lstm-impl "$impl"
  echo "        cpu:  $(losses "$out/cpu_reference.log" | tr '\n' ' ')"
  echo "        cuda: $(losses "$out/cuda_$impl.log" | tr '\n' ' ')"
done
check cuda_bf16 "$bin" "${small[@]}" --device cuda --precision bf16
echo "        bf16: $(losses "$out/cuda_bf16.log" | tr '\n' ' ')"

# NCCL at world size 1, seen through the metrics endpoint while training.
nccl_metrics() {
  "$bin" train --data "$data" --device cuda --epochs 40 --metrics-port 19400 \
    --metrics-address 127.0.0.1 >"$out/nccl_train.log" 2>&1 &
  local pid=$! body=""
  for _ in $(seq 60); do
    sleep 0.5
    body=$(curl -fsS http://127.0.0.1:19400/metrics 2>/dev/null) || continue
    grep -q '^petname_gpu_memory' <<<"$body" && break
  done
  kill -TERM $pid 2>/dev/null
  wait $pid
  echo "$body" | grep -E '^petname_(training_info|gpu_memory)'
  grep -q 'backend="nccl"' <<<"$body" && grep -q 'device="cuda"' <<<"$body" &&
    grep -q '^petname_gpu_memory' <<<"$body"
}
check nccl_metrics nccl_metrics
grep -E '^petname_' "$out/nccl_metrics.log" | sed 's/^/        /'

# SIGTERM mid-run, resume, compare with runs that never stopped. Gradient sums over shared
# prefixes use atomics on CUDA, so two uninterrupted runs differ in the last digits; the resumed
# run must be as close to them as they are to each other (within 5e-3 in validation loss).
resume() {
  local args=(train --data "$data" --device cuda --epochs 12 --batch-size 4096 --seed 3)
  rm -rf "$out/ck_stop" "$out/ck_full"
  "$bin" "${args[@]}" --checkpoint-dir "$out/ck_full" --summary-json "$out/full.json" || return 1
  "$bin" "${args[@]}" --summary-json "$out/full2.json" || return 1
  timeout -s TERM 4 "$bin" "${args[@]}" --checkpoint-dir "$out/ck_stop"
  ls "$out/ck_stop"
  "$bin" "${args[@]}" --checkpoint-dir "$out/ck_stop" --resume --summary-json "$out/resumed.json" || return 1
  python3 - "$out/full.json" "$out/full2.json" "$out/resumed.json" <<'PY'
import json, sys
a, a2, b = (json.load(open(p)) for p in sys.argv[1:])
print("full    val_loss %.6f" % a["val_loss"])
print("full2   val_loss %.6f (run-to-run %.2e)" % (a2["val_loss"], abs(a2["val_loss"] - a["val_loss"])))
print("resumed val_loss %.6f (from full %.2e)" % (b["val_loss"], abs(b["val_loss"] - a["val_loss"])))
sys.exit(0 if abs(a["val_loss"] - b["val_loss"]) < 5e-3 else 1)
PY
}
check resume_on_cuda resume
grep -E '^(full|resumed)|resuming from' "$out/resume_on_cuda.log" | sed 's/^/        /'
check generate_cuda_checkpoint_on_cpu "$bin" generate --checkpoint "$out/ck_full" --count 5 --seed 1

cross() {
  rm -rf "$out/ck_cross"
  "$bin" "${small[@]}" --epochs 1 --device cpu --checkpoint-dir "$out/ck_cross" &&
    "$bin" "${small[@]}" --epochs 2 --device cuda --checkpoint-dir "$out/ck_cross" --resume
}
check cpu_checkpoint_resumes_on_cuda cross
echo "checks failed: $failed"
exit $((failed > 0))
