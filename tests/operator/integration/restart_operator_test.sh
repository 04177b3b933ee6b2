#!/usr/bin/env bash
# Restarting the operator mid-way adopts the pods it already created: no duplicates, and the
# existing pods are kept (same uid).
source "$(dirname "$0")/lib.sh"

start_operator --qps 2 --burst 1  # slow, so that it is killed half-way
create_job rex 12
at_least() { (($(pod_count rex) >= $1)); }
wait_until "first pods" 30 at_least 3
stop_operator KILL
before=$(job_pods rex | jq -r '.items[] | "\(.metadata.name) \(.metadata.uid)"' | sort)
n_before=$(wc -l <<<"$before")
((n_before < 12)) || fail "operator finished before it was killed ($n_before pods)"
log "killed with $n_before of 12 pods created"

start_operator
wait_until "12 pods" 30 has_pods rex 12
wait_until "the restarted operator caught up" 30 caught_up
[[ $(pod_count rex) == 12 ]] || fail "expected exactly 12 pods"
after=$(job_pods rex | jq -r '.items[] | "\(.metadata.name) \(.metadata.uid)"' | sort)
while read -r line; do
  grep -qxF "$line" <<<"$after" || fail "pod $line was replaced instead of adopted"
done <<<"$before"
stop_operator
log PASS
