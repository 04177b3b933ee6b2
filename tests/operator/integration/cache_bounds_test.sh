#!/usr/bin/env bash
# What other users of a namespace can make the operator hold. Services labelled as a job's but
# made by someone else, each with 200 KiB of annotations, and suspended jobs each with 512 KiB of
# template annotations (bulk_objects.py): the operator caches none of the Services and each job as
# its identity only (a Warning event TooLarge), so its resident memory (VmRSS, VmHWM of
# /proc/PID/status) grows by less than half the bulk created, while it watches the objects arrive
# and, restarted, while it lists them all at start (a few objects per page, one page at a time).
# Before, the operator held all of it, and more than twice as much at its peak.
source "$(dirname "$0")/lib.sh"

SERVICES=100 SERVICE_KIB=200 JOBS=32 JOB_KIB=512
BULK_KIB=$((SERVICES * SERVICE_KIB + JOBS * JOB_KIB))
kib() { awk -v field="$2:" '$1 == field {print $2}' "/proc/$1/status"; }
HEALTH_PORT=$(free_port)
ready() { [[ $(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HEALTH_PORT/readyz") == 200 ]]; }

HEALTH_BIND="127.0.0.1:$HEALTH_PORT" start_operator
wait_until "caches synced" 30 ready
base=$(kib "$OP_PID" VmRSS)
python3 "$(dirname "$0")/bulk_objects.py" services "$SERVICES" "$SERVICE_KIB" "$NS" || fail "creating the Services"
python3 "$(dirname "$0")/bulk_objects.py" jobs "$JOBS" "$JOB_KIB" "$NS" || fail "creating the jobs"
log "created $((BULK_KIB / 1024)) MiB of Services and jobs; the operator's RSS was $((base / 1024)) MiB"

# Each watch is one ordered stream: once the operator acts on an object created after the bulky
# ones, it has received them all.
create_job probe 1
wait_until "probe's pod (the jobs' watch is past the bulky jobs)" 120 has_pods probe 1
wait_until "probe's Service" 30 k get service probe
old=$(k get service probe -o jsonpath='{.metadata.uid}')
k delete service probe >/dev/null
recreated() {
  local uid
  uid=$(k get service probe -o jsonpath='{.metadata.uid}') && [[ -n $uid && $uid != "$old" ]]
}
wait_until "probe's Service recreated (the Services' watch is past the bulky ones)" 120 recreated
grown=$(($(kib "$OP_PID" VmRSS) - base))
log "watching: RSS grew by $((grown / 1024)) MiB"
((grown < BULK_KIB / 2)) || fail "RSS grew by $grown KiB for $BULK_KIB KiB of others' objects"
wait_until "event TooLarge on bulk-job-0" 30 has_event bulk-job-0 TooLarge
[[ -z $(k get pntj bulk-job-0 -o jsonpath='{.status.phase}') ]] || fail "a job too large to cache was acted on"

stop_operator
HEALTH_BIND="127.0.0.1:$HEALTH_PORT" start_operator
wait_until "caches synced after the first list" 120 ready
peak=$(kib "$OP_PID" VmHWM)
log "listing: peak RSS $((peak / 1024)) MiB"
((peak - base < BULK_KIB / 2)) || fail "listing peaked at $peak KiB (from $base KiB) for $BULK_KIB KiB of others' objects"
stop_operator
log PASS
