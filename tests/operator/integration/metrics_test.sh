#!/usr/bin/env bash
# /healthz, /readyz and /metrics of a real operator: job counters move on the status
# transitions the test drives by patching pod status (as a kubelet would), the phase gauge and
# is_leader read right, reconciles, the work queue and API requests are also exported under
# controller-runtime's and client-go's names, the exposition passes `promtool check metrics`,
# and JSON logs carry the job key and a reconcile id on each reconcile line; clients that send
# their requests slowly, more of them than the endpoints have workers, stop neither port; the
# corpus of hostile request heads (tests/common/http/hostile_requests.py: a bare LF before a
# Range of 2,000 ranges, Accept-Encoding br, ...) is refused or answered once on both ports.
source "$(dirname "$0")/lib.sh"

HEALTH_PORT=$(free_port)
HEALTH_BIND="127.0.0.1:$HEALTH_PORT" start_operator --log-format json
health() { curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HEALTH_PORT$1"; }
[[ $(health /healthz) == 200 ]] || fail "/healthz"
ready() { [[ $(health /readyz) == 200 ]]; }
wait_until "/readyz 200 once caches synced" 20 ready
[[ $(health /nope) == 404 ]] || fail "unknown path must be 404"

# Clients that start a request and then send one header line every 0.5 s, never ending it.
slow_client() {
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET /metrics HTTP/1.1\r\n' >&3
  for i in $(seq 1 20); do
    sleep 0.5
    printf 'X-Slow-%d: 1\r\n' "$i" >&3 2>/dev/null || break
  done
}
SLOW=()
for _ in 1 2 3 4 5 6; do
  slow_client "$HEALTH_PORT" &
  SLOW+=($!)
  slow_client "$METRICS_PORT" &
  SLOW+=($!)
done
sleep 0.5
[[ $(curl -sS -m 30 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HEALTH_PORT/healthz") == 200 ]] ||
  fail "/healthz beside slow clients"
curl -fsS -m 30 "http://127.0.0.1:$METRICS_PORT/metrics" >/dev/null || fail "/metrics beside slow clients"
kill "${SLOW[@]}" 2>/dev/null || true
wait "${SLOW[@]}" 2>/dev/null || true

HOSTILE="$(dirname "$0")/../../common/http/hostile_requests.py"
python3 "$HOSTILE" "$HEALTH_PORT" /healthz /readyz >"$LOG_DIR/hostile-health.txt" 2>&1 ||
  fail "hostile heads on the probes: $(grep -v ': ok$' "$LOG_DIR/hostile-health.txt")"
python3 "$HOSTILE" "$METRICS_PORT" /metrics >"$LOG_DIR/hostile-metrics.txt" 2>&1 ||
  fail "hostile heads on /metrics: $(grep -v ': ok$' "$LOG_DIR/hostile-metrics.txt")"

create_job ok 1 '  runPolicy: {restartPolicy: Never}'
create_job bad 1 '  runPolicy: {restartPolicy: Never}'
wait_until "ok pod" 30 has_pods ok 1
wait_until "bad pod" 30 has_pods bad 1
wait_until "ok Pending" 20 phase_is ok Pending
set_phase ok-rank-0 Running
wait_until "ok Running" 20 phase_is ok Running
set_phase ok-rank-0 Succeeded
wait_until "ok Succeeded" 20 phase_is ok Succeeded
set_phase bad-rank-0 Failed
wait_until "bad Failed" 20 phase_is bad Failed

series() { metric "$1" | head -n1; }
metric_is() { [[ $(series "$1") == "$2" ]]; }
wait_until "created_total 2" 20 metric_is "petname_operator_jobs_created_total{namespace=\"$NS\"}" 2
metric_is "petname_operator_jobs_succeeded_total{namespace=\"$NS\"}" 1 || fail "succeeded_total"
metric_is "petname_operator_jobs_failed_total{namespace=\"$NS\"}" 1 || fail "failed_total"
metric_is 'petname_operator_jobs{phase="Succeeded"}' 1 || fail "jobs{phase=Succeeded}"
metric_is 'petname_operator_jobs{phase="Failed"}' 1 || fail "jobs{phase=Failed}"
metric_is petname_operator_is_leader 1 || fail "is_leader without leader election"
(($(series petname_operator_reconcile_total) >= 4)) || fail "reconcile_total"
(($(series petname_operator_workqueue_adds_total) >= 2)) || fail "workqueue_adds_total"
[[ -n $(series petname_operator_workqueue_depth) ]] || fail "workqueue_depth"
(($(series petname_operator_reconcile_duration_seconds_count) >= 4)) || fail "reconcile duration"
(($(series petname_operator_workqueue_queue_duration_seconds_count) >= 4)) || fail "queue wait"
(($(series 'petname_operator_api_requests_total{code="201",verb="POST"}') >= 2)) ||
  fail "api_requests_total for the pod and service creations"
(($(series 'petname_operator_api_request_duration_seconds_count{verb="PUT"}') >= 4)) ||
  fail "api latency of status writes"
# The same events under controller-runtime's and client-go's names (stock dashboards).
CTL='controller="petnametrainingjob"'
QUEUE="{$CTL,name=\"petnametrainingjob\"}"
(($(series "controller_runtime_reconcile_total{$CTL,result=\"success\"}") >= 1)) ||
  fail "controller_runtime_reconcile_total{result=success}"
[[ -n $(series "controller_runtime_reconcile_total{$CTL,result=\"requeue_after\"}") ]] ||
  fail "controller_runtime_reconcile_total{result=requeue_after} exported from 0"
[[ -n $(series "controller_runtime_reconcile_errors_total{$CTL}") ]] ||
  fail "controller_runtime_reconcile_errors_total"
(($(series "controller_runtime_reconcile_time_seconds_count{$CTL}") >= 4)) ||
  fail "controller_runtime_reconcile_time_seconds"
(($(series "workqueue_adds_total$QUEUE") >= 2)) || fail "workqueue_adds_total"
for m in workqueue_depth workqueue_retries_total workqueue_unfinished_work_seconds \
  workqueue_longest_running_processor_seconds; do
  [[ -n $(series "$m$QUEUE") ]] || fail "$m"
done
(($(series "workqueue_queue_duration_seconds_count$QUEUE") >= 4)) || fail "workqueue_queue_duration_seconds"
(($(series "workqueue_work_duration_seconds_count$QUEUE") >= 4)) || fail "workqueue_work_duration_seconds"
API_HOST=$("$KUBECTL" --kubeconfig "$KUBECONFIG" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
API_HOST=${API_HOST#https://}
(($(series "rest_client_requests_total{code=\"201\",host=\"$API_HOST\",method=\"POST\"}") >= 2)) ||
  fail "rest_client_requests_total for the pod and service creations (host $API_HOST)"
(($(series "rest_client_requests_total{code=\"200\",host=\"$API_HOST\",method=\"GET\"}") >= 3)) ||
  fail "rest_client_requests_total counts lists and watches as GET"
(($(series process_resident_memory_bytes) > 0)) || fail "process metrics"
metric petname_operator_api_requests_total | head -n1 >/dev/null
[[ -n $(series process_start_time_seconds) ]] || fail "process_start_time_seconds"
(($(series process_open_fds) > 0)) || fail "process_open_fds"

# The counters do not move again when nothing changes (level-triggered, counted on transitions).
touched ok
metric_is "petname_operator_jobs_succeeded_total{namespace=\"$NS\"}" 1 ||
  fail "a re-reconcile must not count Succeeded again"

if command -v promtool >/dev/null; then
  curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" | promtool check metrics ||
    fail "promtool check metrics"
else
  log "promtool not installed: exposition lint skipped"
fi

# Structured logs: every line one JSON object; reconcile lines carry the job and a reconcile id.
stop_operator
jq -e . "$LOG_DIR/operator.log" >/dev/null || fail "a log line is not JSON"
jq -e -s --arg job "$NS/ok" \
  '[.[] | select(.job == $job and (.reconcileID | test("^[0-9a-f-]{36}$")))] | length > 0' \
  "$LOG_DIR/operator.log" >/dev/null || fail "no reconcile line with job and reconcileID"
log PASS
