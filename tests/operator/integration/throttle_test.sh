#!/usr/bin/env bash
# API server throttling and errors (docs/contributing/faults.md). The operator talks to the real
# kube-apiserver through fault_proxy.py, which answers its writes with faults while reads and
# watches pass; the test's own kubectl goes to the API server directly. A job is created while:
#   1. every write gets 429 with Retry-After: 1 (as API Priority and Fairness rejects);
#   2. every write gets 503 without Retry-After;
#   3. every write the server applies has its answer replaced by 500 with Retry-After: 1 (lost
#      answers); refusals (409) pass.
# Asserts that during 1-2 the operator's writes stay under a bound derived from its backoff
# policy (no hot loop), that its metrics count the retries, that once the faults stop the job
# converges (service, both rank pods, Pending then Running) and that no pod was created twice
# (the retried POSTs of phase 3 met 409 AlreadyExists).
# shellcheck disable=SC2016 # the single-quoted arguments of `requests` are awk conditions
source "$(dirname "$0")/lib.sh"

start_fault_proxy

set_fault() {
  echo "$*" >"$PROXY_DIR/fault"
  log "fault on writes: ${*:-none}"
}
log_lines() { wc -l <"$PROXY_DIR/requests.log"; }
# requests FROM TO AWK_CONDITION: requests the proxy logged in lines FROM+1..TO matching the
# condition on its fields (METHOD PATH UPSTREAM_CODE ANSWERED_CODE).
requests() { sed -n "$(($1 + 1)),$2p" "$PROXY_DIR/requests.log" | awk "$3" | wc -l; }
retries() { metric_value "rest_client_request_retries_total{code=\"$1\",host=\"$API_HOST\",verb=\"$2\"}"; }
retried() { (($(retries "$1" "$2") >= $3)); }
CTL='controller="petnametrainingjob"'
errors() { metric_value "controller_runtime_reconcile_errors_total{$CTL}"; }
errors_at_least() { (($(errors) >= $1)); }

start_operator
wait_until "the operator's first requests through the proxy" 20 test -s "$PROXY_DIR/requests.log"

# Phases 1 and 2: nothing the operator writes gets through.
set_fault 429 1
start_line=$(log_lines)
start_s=$SECONDS
create_job thr 2
wait_until "status writes retried after 429" 60 retried 429 PUT 3
wait_until "a reconcile failing once its retries ran out" 60 errors_at_least 1
set_fault 503 -
errors_before=$(errors)
wait_until "status writes retried after 503" 60 retried 503 PUT 2
wait_until "the next reconcile failing" 60 errors_at_least $((errors_before + 1))
end_line=$(log_lines)
window=$((SECONDS - start_s + 1))

writes=$(requests "$start_line" "$end_line" '$1 != "GET"')
faulted=$(requests "$start_line" "$end_line" '$1 != "GET" && $3 == "-"')
bound=$(write_bound "$window")
log "phases 1-2: ${window} s, $writes writes ($faulted faulted), bound $bound," \
  "$(errors) reconcile errors"
((writes == faulted)) || fail "a write passed while all writes were faulted"
((writes >= 4)) || fail "expected the status write and its retries, saw $writes writes"
((writes <= bound)) || fail "hot loop: $writes writes in ${window} s, bound $bound"

# Phase 3: writes are applied but their answers lost; retries must not duplicate anything.
set_fault 500 1 forward
wait_until "2 pods created while answers are lost" 60 has_pods thr 2
wait_until "service thr" 30 k get service thr
wait_until "pod creations retried after 500 + Retry-After" 30 retried 500 POST 2
set_fault

# The retries are visible in the operator's metrics.
(($(metric_value "rest_client_requests_total{code=\"429\",host=\"$API_HOST\",method=\"PUT\"}") >= 3)) ||
  fail "rest_client_requests_total{code=429}"
(($(metric_value "rest_client_requests_total{code=\"503\",host=\"$API_HOST\",method=\"PUT\"}") >= 2)) ||
  fail "rest_client_requests_total{code=503}"
(($(metric_value "workqueue_retries_total{$CTL,name=\"petnametrainingjob\"}") >= 2)) ||
  fail "workqueue_retries_total"

# Converges once the faults stop.
wait_until "thr Pending" 30 phase_is thr Pending
run_all thr 2
processed "thr Running" 30 phase_is thr Running
[[ $(pod_count thr) == 2 ]] || fail "expected exactly 2 pods"
all=$(log_lines)
pods_created=$(requests 0 "$all" '$1 == "POST" && $2 ~ /\/pods$/ && $3 == 201')
pods_conflict=$(requests 0 "$all" '$1 == "POST" && $2 ~ /\/pods$/ && $3 == 409')
svc_created=$(requests 0 "$all" '$1 == "POST" && $2 ~ /\/services$/ && $3 == 201')
log "pods created $pods_created times (409 AlreadyExists on $pods_conflict retries)," \
  "services $svc_created times"
((pods_created == 2 && svc_created == 1)) || fail "an object was created more than once"
((pods_conflict >= 2)) || fail "the retried pod creations should have met 409 AlreadyExists"
stop_operator
log PASS
