#!/usr/bin/env bash
# A real Prometheus scraping a real training run: starts `petname train --nproc 2` with
# metrics on loopback, static dcgm-exporter expositions (fixtures/, served by
# python3 -m http.server), and two instances of Debian's prometheus (1s scrapes, the chart's
# rules loaded), one per GPU layout of fixtures/:
#   one-gpu-per-pod   ranks 0 and 1 in pods pets-rank-0 and pets-rank-1, one GPU each
#                     (one exporter scraped with honor_labels, one behind a Service);
#   two-gpus-per-pod  ranks 0 and 1 both in pod pets-rank-0, on its GPUs 0 and 1, beside a
#                     GPU of another pod and an unassigned one.
# Then checks `promtool check metrics` on each rank's exposition, that every PromQL
# expression of the dashboard and the rules evaluates and returns data, and that every GPU
# query returns exactly the series and values of the layout's expected.json
# (promql_check.py), and that stopping the run raises PetnameRankTargetDown in both.
# Every process is stopped by PID.
#
# Usage: prometheus_test.sh PETNAME_BINARY DATA_CSV
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
petname=$1
data=$2
dashboard=$repo/charts/petname-operator/dashboards/petname-training.json
rules=$repo/charts/petname-operator/rules/petname.rules.yaml
py=/usr/bin/python3 # Debian's, with python3-yaml
world=2
nproc=(--nproc "$world")
if ! "$petname" train --help | grep -- --nproc >/dev/null; then
  world=1
  nproc=()
  echo "prometheus_test: this petname has no --nproc; scraping a single-rank run"
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$here/../support/ports.sh"
metrics_port=$(free_ports $world)
fixture_port=$(free_ports 1)
layouts=(one-gpu-per-pod two-gpus-per-pod)
declare -A prom

$py -m http.server "$fixture_port" --bind 127.0.0.1 --directory "$here/fixtures" \
  >"$work/fixtures.log" 2>&1 &
pids+=($!)

# Small data and many epochs: each epoch takes about a second, the run outlasts the checks
# and is stopped by the test. It runs as a trial of sweep "grid" (the label the operator gives
# a sweep's trials) with a goal met after the first epoch, for the dashboard's sweep row.
PETNAME_JOB_NAME=pets PETNAME_NAMESPACE=ml PETNAME_SWEEP_NAME=grid "$petname" train "${nproc[@]}" \
  --data "$data" --max-names 800 --epochs 1000 --batch-size 512 --threads 1 \
  --goal validationLoss=100 \
  --checkpoint-dir "$work/ckpt" --metrics-port "$metrics_port" --metrics-address 127.0.0.1 \
  >"$work/train.log" 2>&1 &
train_pid=$!
pids+=("$train_pid")

# The Prometheus configuration of a GPU layout: the rank pod of `rank` and the dcgm-exporter
# scrapes of fixtures/LAYOUT/.
prometheus_config() {
  local layout=$1 rank pod
  echo "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}"
  echo "rule_files: ['$rules']"
  echo "scrape_configs:"
  echo "  - job_name: petname"
  echo "    honor_labels: true"
  echo "    static_configs:"
  for ((rank = 0; rank < world; rank++)); do
    pod=pets-rank-$rank
    [[ $layout == two-gpus-per-pod ]] && pod=pets-rank-$((rank / 2))
    echo "      - targets: ['127.0.0.1:$((metrics_port + rank))']"
    echo "        labels: {job: pets, namespace: ml, rank: '$rank', pod: $pod}"
  done
  echo "  - job_name: dcgm-node"
  echo "    honor_labels: true"
  echo "    metrics_path: /$layout/dcgm-node.prom"
  echo "    static_configs: [{targets: ['127.0.0.1:$fixture_port']}]"
  if [[ -f $here/fixtures/$layout/dcgm-service.prom ]]; then
    echo "  - job_name: dcgm-service"
    echo "    metrics_path: /$layout/dcgm-service.prom"
    echo "    static_configs:"
    echo "      - targets: ['127.0.0.1:$fixture_port']"
    echo "        labels: {namespace: gpu-operator, pod: nvidia-dcgm-exporter-x7k2p}"
  fi
  echo "  - job_name: cuda-rank"
  echo "    honor_labels: true"
  echo "    metrics_path: /cuda-rank.prom"
  echo "    static_configs: [{targets: ['127.0.0.1:$fixture_port']}]"
}

for layout in "${layouts[@]}"; do
  port=$(free_ports 1)
  prom[$layout]=http://127.0.0.1:$port
  prometheus_config "$layout" >"$work/$layout.yml"
  promtool check config "$work/$layout.yml" >/dev/null
  prometheus --config.file="$work/$layout.yml" --storage.tsdb.path="$work/tsdb-$layout" \
    --web.listen-address="127.0.0.1:$port" >"$work/prometheus-$layout.log" 2>&1 &
  pids+=($!)
done

fail() {
  echo "prometheus_test: $*" >&2
  echo "--- petname train (last lines)" >&2
  tail -n 20 "$work/train.log" >&2
  exit 1
}

declare -A at
for layout in "${layouts[@]}"; do
  at[$layout]=$($py "$here/promql_check.py" wait "${prom[$layout]}" --world $world \
    --rules "$rules" --timeout 240) ||
    fail "the run never became visible in Prometheus ($layout)"
done

for ((rank = 0; rank < world; rank++)); do
  curl -sf "http://127.0.0.1:$((metrics_port + rank))/metrics" >"$work/rank$rank.prom" ||
    fail "rank $rank serves no /metrics"
  promtool check metrics <"$work/rank$rank.prom" || fail "promtool check metrics: rank $rank"
  echo "ok   promtool check metrics: rank $rank ($(grep -c '^petname_' "$work/rank$rank.prom") petname samples)"
done

for layout in "${layouts[@]}"; do
  echo "--- $layout"
  $py "$here/promql_check.py" check "${prom[$layout]}" --time "${at[$layout]}" \
    --dashboard "$dashboard" --rules "$rules" --expect "$here/fixtures/$layout/expected.json" \
    --var namespace=ml --var job=pets --var 'rank=.*' --var sweep=grid --var __rate_interval=10s ||
    fail "dashboard or rule expressions failed ($layout)"
done

kill -TERM "$train_pid"
wait "$train_pid" 2>/dev/null || true
for layout in "${layouts[@]}"; do
  $py "$here/promql_check.py" alert "${prom[$layout]}" PetnameRankTargetDown --timeout 30 ||
    fail "stopping the run did not raise PetnameRankTargetDown ($layout)"
done
echo "prometheus_test: passed"
