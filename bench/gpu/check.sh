#!/usr/bin/env bash
# Asserts petname's CUDA path on a GPU machine after bench/gpu/build.sh (docs/contributing/gpu.md), or the
# same assertions on the CPU (--device cpu: CI's tests/bench/gpu_check_test.sh). One line per
# check, `ok NAME: ...` or `FAILED NAME: reason`, then one last line; exit 1 if any failed.
#
#   bash bench/gpu/check.sh [--device cuda|cpu] [--petname BIN] [--data CSV] [--max-names N]
#                           [--out DIR] [--strace BIN]
#
# --strace BIN: the strace that stops the resume check's run (default: strace on PATH).
#
# Checks (tolerances are absolute, on every epoch's train and validation loss):
#   trace_*        the same seed gives the CPU's loss trace: CUDA fp32 without TF32 with each
#                  --lstm-impl within 1e-4, bf16 within 1e-3 (cpu: the device forest within 1e-4)
#   resume         with --deterministic: SIGTERM as the run commits its checkpoint of epoch 1
#                  (strace delivers it), exit 143, a checkpoint whose step is strictly inside the
#                  run, and the resumed run's trace equal to an unstopped run's within 1e-6 on
#                  CUDA, 1e-9 on the CPU (with a fixed --threads: another thread count sums in
#                  another order)
#   spread         cuda only: reports (never fails on) how far two unstopped runs of the default
#                  path (without --deterministic) land apart: its atomic adds change the last
#                  bits from run to run (the CPU's runs at a fixed --threads land on the same bits)
#   device_step    the unstopped run (the whole table on CUDA): 0 eager batches; on CUDA every
#                  step in CUDA graphs captured before training
#   metrics        world size 1 (--backend nccl on CUDA, gloo on the CPU): the first scrape that
#                  answers already serves every expected name, and /metrics serves them with
#                  petname_train_steps_total > 0 while training
#   cuda only: a CUDA checkpoint generates on the CPU; a CPU checkpoint resumes on CUDA.
set -uo pipefail
cd "$(dirname "$0")/../.."
here=bench/gpu
device=cuda bin=build-gpu/bin/petname data=data/seattle_pet_licenses.csv max_names=3000 out=""
strace_bin=""
while (($#)); do
  case $1 in
    --device) device=$2 ;;
    --petname) bin=$2 ;;
    --data) data=$2 ;;
    --max-names) max_names=$2 ;;
    --out) out=$2 ;;
    --strace) strace_bin=$2 ;;
    *) echo "check.sh: error: unknown argument $1" >&2 && exit 2 ;;
  esac
  shift 2 || { echo "check.sh: error: $1 needs a value" >&2 && exit 2; }
done
[[ $device == cuda || $device == cpu ]] || { echo "check.sh: error: --device cuda or cpu" >&2 && exit 2; }
[[ -x $bin ]] || { echo "check.sh: error: no petname at $bin" >&2 && exit 2; }
keep=1
[[ -n $out ]] || { out=$(mktemp -d "${TMPDIR:-/tmp}/petname-gpu-check.XXXXXX") && keep=0; }
mkdir -p "$out"
out=$(realpath "$out")
strace_bin=${strace_bin:-$(command -v strace)}
failed=()
check() {  # check NAME COMMAND...: the command's last output line is the check's reason
  local name=$1 line
  shift
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  line=$(tail -n 1 "$out/$name.log")
  if ((rc == 0)); then echo "ok      $name: $line"; else
    echo "FAILED  $name: $line (logs in $out)"
    failed+=("$name")
  fi
}
verify() { python3 "$here/verify.py" "$@"; }
run() {  # run NAME ARGS...: a training run, stdout and stderr to NAME.out / NAME.err
  local name=$1
  shift
  "$bin" train --data "$data" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { echo "petname exited $? ($(tail -n 1 "$out/$name.err"))" && return 1; }
  tail -n 1 "$out/$name.out"
}
# Runs training with --checkpoint-dir DIR under strace, which sends it SIGTERM at its first system
# call that names DIR/epoch-000001, as it commits that checkpoint: the stop lands after the first
# epoch and before the run's end however fast the machine is. Succeeds when the run then exits
# with 143 (preempted after checkpointing).
stop_at_first_checkpoint() {
  local name=$1 dir=$2
  shift 2
  [[ -x $strace_bin ]] ||
    { echo "no strace to stop the run with (apt-get install strace, or --strace BIN)" && return 1; }
  "$strace_bin" -f -qq -o /dev/null -e trace=%file -e inject=%file:signal=TERM:when=1 \
    -P "$dir/epoch-000001" "$bin" train --data "$data" "$@" --checkpoint-dir "$dir" \
    >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  ((rc == 143)) ||
    { echo "the stopped run exited $rc, not 143 (preempted): $(tail -n 1 "$out/$name.err")" && return 1; }
}
steps() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["steps"])' "$1"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

small=(--max-names "$max_names" --batch-size 1024 --seed 7)  # and --epochs 2 (or 1)
trace() {  # trace NAME TOL ARGS...: a small run against the CPU reference
  local name=$1 tol=$2
  shift 2
  run "$name" "${small[@]}" --epochs 2 --summary-json "$out/$name.json" "$@" &&
    verify trace "$out/cpu_reference.json" "$out/$name.json" --tol "$tol"
}
cpu_reference() { run cpu_reference "${small[@]}" --epochs 2 --device cpu --summary-json "$out/cpu_reference.json"; }
check cpu_reference cpu_reference
if [[ $device == cuda ]]; then
  check trace_device_forest trace cuda_device_forest 1e-4 --device cuda --no-tf32 --lstm-impl device-forest
  check trace_cudnn trace cuda_cudnn 1e-4 --device cuda --no-tf32 --lstm-impl cudnn
  check trace_bf16 trace cuda_bf16 1e-3 --device cuda --precision bf16
  long=(--device cuda --batch-size 4096 --seed 3)
  epochs=12
  resume_tol=1e-6
else
  check trace_device_forest trace cpu_device_forest 1e-4 --device cpu --lstm-impl device-forest
  long=(--device cpu --lstm-impl device-forest --max-names "$max_names" --batch-size 256 --seed 3 --threads 2)
  epochs=3
  resume_tol=1e-9
fi

resume() {
  rm -rf "$out/ck_full" "$out/ck_stop"
  local exact=("${long[@]}" --deterministic --epochs "$epochs")
  run full "${exact[@]}" --checkpoint-dir "$out/ck_full" --summary-json "$out/full.json" || return 1
  stop_at_first_checkpoint stopped "$out/ck_stop" "${exact[@]}" || return 1
  local mid line
  mid=$(verify midway "$out/ck_stop" "$(steps "$out/full.json")") || { echo "$mid" && return 1; }
  run resumed "${exact[@]}" --checkpoint-dir "$out/ck_stop" --resume --summary-json "$out/resumed.json" || return 1
  grep -q 'resuming from' "$out/resumed.err" || { echo "the resumed run did not resume" && return 1; }
  line=$(verify trace "$out/full.json" "$out/resumed.json" --tol "$resume_tol" --tail)
  local rc=$?
  echo "$mid; $line"
  return $rc
}
check resume resume
spread() {
  run spread_a "${long[@]}" --epochs "$epochs" --summary-json "$out/spread_a.json" &&
    run spread_b "${long[@]}" --epochs "$epochs" --summary-json "$out/spread_b.json" &&
    verify spread "$out/spread_a.json" "$out/spread_b.json"
}
[[ $device == cpu ]] || check spread spread
device_step() {
  [[ -f $out/full.json ]] || { echo "no unstopped run (see resume)" && return 1; }
  verify device-step "$out/full.err" "$(steps "$out/full.json")" --device "$device"
}
check device_step device_step

metrics() {
  local port backend=gloo body=$out/metrics.txt names=(petname_training_info
    petname_train_steps_total petname_train_loss petname_world_size petname_step_duration_seconds_count
    petname_validation_loss petname_train_epoch_loss petname_checkpoint_failures_total)
  [[ $device == cuda ]] && backend=nccl && names+=(petname_gpu_memory_allocated_bytes petname_gpu_memory_reserved_bytes)
  local first=$out/metrics_first.txt
  port=$(free_port)
  rm -f "$first"
  "$bin" train --data "$data" "${long[@]}" --epochs 1000 --backend "$backend" --metrics-port "$port" \
    --metrics-address 127.0.0.1 >"$out/metrics_train.out" 2>"$out/metrics_train.err" &
  local pid=$! ok=1
  while kill -0 "$pid" 2>/dev/null; do
    if python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
      "http://127.0.0.1:$port/metrics" >"$body" 2>/dev/null; then
      [[ -s $first ]] || cp "$body" "$first"
      if grep -qE '^petname_train_steps_total(\{[^}]*\})? [1-9]' "$body"; then
        ok=0
        break
      fi
    fi
    sleep 0.2
  done
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  ((ok == 0)) || { echo "training ended before /metrics showed a step ($(tail -n 1 "$out/metrics_train.err"))" && return 1; }
  local labels=(--label backend="$backend" --label device="$device")
  verify metrics "$first" "${names[@]}" "${labels[@]}" --first >/dev/null ||
    { echo "first scrape: $(verify metrics "$first" "${names[@]}" "${labels[@]}" --first)" && return 1; }
  verify metrics "$body" "${names[@]}" "${labels[@]}"
}
check metrics metrics

if [[ $device == cuda ]]; then
  check generate_cuda_checkpoint_on_cpu "$bin" generate --checkpoint "$out/ck_full" --count 5 --seed 1
  cross() {
    rm -rf "$out/ck_cross"
    run cross_cpu "${small[@]}" --epochs 1 --device cpu --checkpoint-dir "$out/ck_cross" &&
      run cross_cuda "${small[@]}" --epochs 2 --device cuda --no-tf32 --checkpoint-dir "$out/ck_cross" --resume --summary-json "$out/cross.json" &&
      verify trace "$out/cpu_reference.json" "$out/cross.json" --tol 1e-4 --tail
  }
  check cpu_checkpoint_resumes_on_cuda cross
fi

if ((${#failed[@]})); then
  echo "check.sh: FAILED on $device: ${failed[*]}"
  exit 1
fi
((keep)) || rm -rf "$out"
echo "check.sh: every check passed on $device"
