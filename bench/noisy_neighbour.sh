#!/usr/bin/env bash
# Training beside busy neighbours. Runs `petname train` with its default threads (which it
# lowers while its threads wait for a CPU), `petname train --threads 1` and the PyTorch recipe
# (bench/recipe.py, Debian's python3-torch, as bench/throughput.sh runs it) with each of
# --recipe-threads, while 0, 1 and 2 (--neighbours) CPU-burning processes run beside them;
# rounds interleave (each round runs every side at every neighbour count), so drifting
# background load hits all sides alike. Then, on the otherwise idle machine, at the recipe's
# batch (--idle-batch): the recipe with --idle-threads threads, petname with its default
# threads, and petname with --threads --idle-threads ("petname-fixed"), for the ratios to the
# recipe. Prints the medians of samples/s as tables; every run's command and output go to the
# file --out.
#
#   bench/noisy_neighbour.sh [--data CSV] [--rounds 3] [--neighbours '0 1 2'] [--max-names 3000]
#       [--batch 256] [--epochs 1] [--recipe-threads "$(nproc) 1"] [--idle-batch 4096]
#       [--idle-threads 2] [--idle-max-names 0] [--idle-rounds 3] [--petname PATH] [--out FILE]
#       [--env 'LABEL=VAR=VALUE[ VAR=VALUE...]']... [--dry-run]
#
# Each --env adds a petname side (default threads; --idle-threads when idle) whose environment
# also holds those variables, e.g. --env 'passive=OMP_WAIT_POLICY=PASSIVE' or
# --env 'spin10k=GOMP_SPINCOUNT=10000' against libgomp's default (a spin count of 300,000 when
# neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set). Every side starts without OMP_WAIT_POLICY,
# GOMP_SPINCOUNT, OMP_NUM_THREADS and PETNAME_ADAPTIVE_THREADS from this shell; the recipe
# gets OMP_NUM_THREADS = its threads, as in bench/throughput.sh. A neighbour is
# `sh -c 'while :; do :; done'`, stopped by its PID when its turn ends or the script exits.
# --dry-run prints the plan (every command, in order) and runs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
command_line=$(printf '%q ' "$0" "$@")

data=${PETNAME_DATA:-data/seattle_pet_licenses.csv}  # bash scripts/get-data puts it there
rounds=3
neighbour_counts="0 1 2"
max_names=3000
batch=256
epochs=1
recipe_threads="$(nproc) 1"
idle_batch=4096
idle_threads=2
idle_max_names=0
idle_rounds=3
petname=build/bin/petname
out=""
envs=()
dry=0
python=/usr/bin/python3 # Debian's python3-torch; the python3 first on PATH may be another

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1; shift; continue ;;
    -h | --help) usage ;;
  esac
  [ $# -ge 2 ] || { echo "noisy_neighbour.sh: $1 needs a value" >&2; exit 2; }
  case "$1" in
    --data) data=$2 ;;
    --rounds) rounds=$2 ;;
    --neighbours) neighbour_counts=$2 ;;
    --max-names) max_names=$2 ;;
    --batch) batch=$2 ;;
    --epochs) epochs=$2 ;;
    --recipe-threads) recipe_threads=$2 ;;
    --idle-batch) idle_batch=$2 ;;
    --idle-threads) idle_threads=$2 ;;
    --idle-max-names) idle_max_names=$2 ;;
    --idle-rounds) idle_rounds=$2 ;;
    --petname) petname=$2 ;;
    --out) out=$2 ;;
    --env) envs+=("$2") ;;
    *) echo "noisy_neighbour.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
for n in "$rounds" "$batch" "$epochs" "$idle_batch" "$idle_threads" "$idle_rounds" $recipe_threads; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "noisy_neighbour.sh: '$n' is not a positive integer" >&2; exit 2; }
done
for n in "$max_names" "$idle_max_names" $neighbour_counts; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "noisy_neighbour.sh: '$n' is not a whole number" >&2; exit 2; }
done
for e in "${envs[@]}"; do
  [[ "${e%%=*}" =~ ^[A-Za-z0-9_.-]+$ && "${e#*=}" =~ ^([A-Za-z_][A-Za-z0-9_]*=[^ ]*( |$))+$ ]] ||
    { echo "noisy_neighbour.sh: --env wants LABEL=VAR=VALUE[ VAR=VALUE...], got '$e'" >&2; exit 2; }
done
if [ "$dry" = 0 ]; then
  [ -f "$data" ] || { echo "noisy_neighbour.sh: data file $data does not exist" >&2; exit 1; }
  [ -x "$petname" ] || { echo "noisy_neighbour.sh: $petname is not built (bash scripts/build)" >&2; exit 1; }
  command -v jq >/dev/null || { echo "noisy_neighbour.sh: jq is missing (bash scripts/setup)" >&2; exit 1; }
fi
if [ "$dry" = 0 ] && [ -z "$out" ]; then out=$(mktemp /tmp/petname-noisy-neighbour.XXXXXX.txt); fi
work=$(mktemp -d)
neighbours=()

stop_neighbours() {
  if [ ${#neighbours[@]} -gt 0 ]; then
    kill "${neighbours[@]}" 2>/dev/null || true
    wait "${neighbours[@]}" 2>/dev/null || true
  fi
  neighbours=()
}
start_neighbours() { # COUNT
  local i
  for ((i = 0; i < $1; i++)); do
    sh -c 'while :; do :; done' &
    neighbours+=($!)
  done
}
trap 'stop_neighbours; rm -rf "$work"' EXIT

header() {
  echo "command: $command_line"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(nproc) CPUs; petname: $("$petname" --version 2>/dev/null || echo "$petname")"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
if [ "$dry" = 0 ]; then header | tee "$out"; else header; fi

# The command of a side, as words: SIDE BATCH MAX_NAMES IDLE SUMMARY_JSON. Sides: petname,
# petname-t1, recipe-tN, and the --env labels.
side_command() {
  local side=$1 b=$2 m=$3 idle=$4 json=$5 threads=() e more
  cmd=(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u OMP_NUM_THREADS -u PETNAME_ADAPTIVE_THREADS)
  case "$side" in
    recipe-t*)
      cmd+=("OMP_NUM_THREADS=${side#recipe-t}" "$python" bench/recipe.py --data "$data"
        --epochs "$epochs" --batch-size "$b" --threads "${side#recipe-t}" --max-names "$m")
      return ;;
    petname-t1) threads=(--threads 1) ;;
    petname-fixed) threads=(--threads "$idle_threads") ;;
    petname) ;;
    *)
      for e in "${envs[@]}"; do
        if [ "${e%%=*}" = "$side" ]; then read -ra more <<<"${e#*=}"; cmd+=("${more[@]}"); fi
      done ;;
  esac
  [ "$idle" = 1 ] && [ "$side" != petname ] && threads=(--threads "$idle_threads")
  cmd+=("$petname" train --data "$data" --epochs "$epochs" --batch-size "$b" --max-names "$m"
    "${threads[@]}" --summary-json "$json")
}

# Runs one side and appends "KEY SIDE SAMPLES_PER_SECOND" to $work/rows (nothing in a dry run).
measure() { # KEY SIDE BATCH MAX_NAMES IDLE
  local key=$1 side=$2 json=$work/run.json log=$work/run.log sps
  side_command "$side" "$3" "$4" "$5" "$json"
  if [ "$dry" = 1 ]; then printf '  '; printf '%q ' "${cmd[@]}"; echo; return; fi
  rm -f "$json"
  {
    echo "=== $key $side, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%q ' "${cmd[@]}"
    echo
  } >>"$out"
  if ! "${cmd[@]}" >"$log" 2>&1; then
    cat "$log" >>"$out"
    echo "noisy_neighbour.sh: $side ($key) failed, see $out" >&2
    exit 1
  fi
  cat "$log" >>"$out"
  if [[ $side == recipe-t* ]]; then
    # examples * epochs / training seconds, from the recipe's "names" and "epoch" lines.
    sps=$(awk '/^names / {examples = $4} /^epoch / {s += $6; e++}
               END {printf "%.0f", examples * e / s}' "$log")
  else
    sps=$(jq -r '.samples_per_second | floor' "$json")
  fi
  echo "$key $side $sps" >>"$work/rows"
  printf '%-8s %-14s %10s samples/s\n' "$key" "$side" "$sps"
}

busy_sides=(petname petname-t1)
for t in $recipe_threads; do busy_sides+=("recipe-t$t"); done
idle_sides=(recipe-t"$idle_threads" petname petname-fixed)
for e in "${envs[@]}"; do
  busy_sides+=("${e%%=*}")
  idle_sides+=("${e%%=*}")
done

echo "--- beside busy neighbours: batch $batch, max-names $max_names, $epochs epoch(s)"
for round in $(seq 1 "$rounds"); do
  for n in $neighbour_counts; do
    echo "round $round, $n busy neighbour(s)"
    [ "$dry" = 1 ] || start_neighbours "$n"
    for side in "${busy_sides[@]}"; do measure "busy$n" "$side" "$batch" "$max_names" 0; done
    stop_neighbours
  done
done
echo "--- idle: batch $idle_batch, max-names $idle_max_names, $idle_threads threads"
for round in $(seq 1 "$idle_rounds"); do
  echo "round $round, idle"
  for side in "${idle_sides[@]}"; do measure idle "$side" "$idle_batch" "$idle_max_names" 1; done
done
if [ "$dry" = 1 ]; then
  echo "dry run: nothing was run"
  exit 0
fi

# Medians of samples/s: one row per side, one column per neighbour count; then the idle
# medians with their ratio to the recipe at --idle-threads.
awk -v counts="$neighbour_counts" -v recipe="recipe-t$idle_threads" -v out="$out" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {t = a[j]; a[j] = a[j - 1]; a[j - 1] = t}
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {k = $1 SUBSEP $2; n[k]++; v[k, n[k]] = $3; if (!($2 in seen)) {seen[$2]; order[++sides] = $2}}
  END {
    for (k in n) {for (i = 1; i <= n[k]; i++) a[i] = v[k, i]; m[k] = median(a, n[k])}
    nc = split(counts, c, " ")
    printf "\nmedian samples/s beside busy neighbours\n%-14s", "side"
    for (i = 1; i <= nc; i++) printf " %10s", c[i] " busy"
    printf "\n"
    for (s = 1; s <= sides; s++) {
      if (!(("busy" c[1]) SUBSEP order[s] in n)) continue
      printf "%-14s", order[s]
      for (i = 1; i <= nc; i++) printf " %10.0f", m["busy" c[i], order[s]]
      printf "\n"
    }
    printf "\nmedian samples/s idle, ratio to %s\n", recipe
    for (s = 1; s <= sides; s++) {
      k = "idle" SUBSEP order[s]
      if (k in n) printf "%-14s %10.0f %6.3f\n", order[s], m[k], m[k] / m["idle", recipe]
    }
    printf "raw output %s\n", out
  }' "$work/rows" | tee -a "$out"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
