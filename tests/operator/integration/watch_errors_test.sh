#!/usr/bin/env bash
# Watch errors other than 410 (docs/contributing/faults.md). Behind fault_proxy.py, the operator's first
# watch of each collection gets a line that is not a watch event; after a restart of the
# operator, its first watches break off in the middle of the stream instead. Each time the
# informers must list again (after a backoff) and watch again: a job created afterwards is
# reconciled, which only a working watch sees.
source "$(dirname "$0")/lib.sh"

start_fault_proxy
# First pages of the job lists that the proxy forwarded with a 200 (both job informers list
# petnametrainingjobs: the job controller's, and the sweep controller's by label).
job_lists() {
  awk '$1 == "GET" && $2 ~ /petnametrainingjobs\?limit=[0-9]+/ && $2 !~ /continue=/ && $4 == 200' \
    "$PROXY_DIR/requests.log" | wc -l
}
relisted() { (($(job_lists) >= $1)); }

for fault in garbage drop; do
  echo "$fault" >"$PROXY_DIR/watch_fault"
  before=$(job_lists)
  start_operator
  # Each job informer lists at start, then once more after its broken watch.
  wait_until "both job lists listed again after a watch with $fault" 60 relisted $((before + 4))
  create_job "after-$fault" 2
  wait_until "pods of the job created after the $fault watch" 60 has_pods "after-$fault" 2
  stop_operator
done

grep -q "a line that is not a watch event" "$LOG_DIR/operator.log" ||
  fail "the undecodable watch line was not logged"
[[ $(grep -c "failed; relisting after a backoff" "$LOG_DIR/operator.log") -ge 4 ]] ||
  fail "expected a relist after a backoff for each broken job watch"
log PASS
