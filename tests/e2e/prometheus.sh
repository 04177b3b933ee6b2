# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its WORK, PIDS, kn, check and tests/support/ports.sh): a Prometheus
# on the host scraping every local rank of every rank pod at its pod IP.
# Debian's prometheus is built without kubernetes_sd_configs, so the targets come from the API
# (pods of the job, their IPs and the container ports named metrics and metrics-<k>, one per local
# rank) into a file_sd file, as a Kubernetes pod discovery with the chart's PodMonitor would list
# them.
prometheus_start() {
  local port
  port=$(free_port)
  PROM=http://127.0.0.1:$port
  mkdir -p "$WORK/targets"
  cat >"$WORK/prometheus.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: petname-ranks
    file_sd_configs: [{files: ['$WORK/targets/*.json'], refresh_interval: 1s}]
EOF
  setup "prometheus config" promtool check config "$WORK/prometheus.yml"
  # (dies with this script, also on SIGKILL, e.g. a ctest timeout; the cluster has its watchdog)
  setpriv --pdeathsig KILL -- prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$port" >"$WORK/prometheus.log" 2>&1 &
  PIDS+=($!)
}
# publish_targets JOB N: the job's N metrics endpoints (pod IP and metrics port of each local
# rank) as Prometheus file_sd targets
publish_targets() {
  kn get pods -l "petname.dev/job-name=$1" -o json | jq '[.items[] | select(.status.podIP != null) |
      . as $pod | .spec.containers[0].ports[] | select(.name | test("^metrics(-[0-9]+)?$")) | {
      targets: ["\($pod.status.podIP):\(.containerPort)"],
      labels: {pntj: $pod.metadata.labels["petname.dev/job-name"], rank: $pod.metadata.labels["petname.dev/rank"],
               pod: $pod.metadata.name, port: .name}}]' >"$WORK/targets/.$1.tmp" &&
    [[ $(jq length "$WORK/targets/.$1.tmp") == "$2" ]] && mv -f "$WORK/targets/.$1.tmp" "$WORK/targets/$1.json"
}
# promql QUERY: the result vector as "labels value" lines
promql() {
  curl -fsS --max-time 5 "$PROM/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys
for r in json.load(sys.stdin)["data"]["result"]: print(json.dumps(r["metric"], sort_keys=True), r["value"][1])'
}
# scraped_all JOB N: each of the job's N endpoints was up (1) at some point, scraped at a
# pod-network IP, and served petname_epoch
scraped_all() {
  local out
  out=$(promql "max_over_time(up{job=\"petname-ranks\",pntj=\"$1\"}[15m])")
  echo "$out"
  [[ $(grep -c '"port": "metrics.* 1$' <<<"$out") == "$2" ]] &&
    [[ $(grep -c "\"instance\": \"${PETNAME_POD_CIDR%.*}\." <<<"$out") == "$2" ]] &&
    [[ $(promql "count(max_over_time(petname_epoch{pntj=\"$1\"}[15m]))") == *" $2" ]]
}
