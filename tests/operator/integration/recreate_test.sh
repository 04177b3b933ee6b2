#!/usr/bin/env bash
# Pods deleted by someone else are recreated; foreign pods with the same labels (or holding a
# desired name) are not touched.
source "$(dirname "$0")/lib.sh"

foreign_pod() { # NAME JOB
  k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {app.kubernetes.io/name: petname, petname.dev/job-name: $2, petname.dev/rank: "0"}
spec:
  containers: [{name: c, image: busybox}]
YAML
}

start_operator
foreign_pod stray rex
foreign_pod taken-rank-0 taken
stray_rv=$(k get pod stray -o jsonpath='{.metadata.resourceVersion}')
taken_rv=$(k get pod taken-rank-0 -o jsonpath='{.metadata.resourceVersion}')

create_job rex 3
create_job taken 2
wait_until "3 pods of rex (+ stray)" 30 has_pods rex 4
old_uid=$(k get pod rex-rank-1 -o jsonpath='{.metadata.uid}')
k delete pod rex-rank-1 --wait=false >/dev/null
recreated() {
  local uid
  uid=$(k get pod rex-rank-1 -o jsonpath='{.metadata.uid}') && [[ -n $uid && $uid != "$old_uid" ]]
}
wait_until "rex-rank-1 recreated" 30 recreated
wait_until "taken-rank-1" 30 k get pod taken-rank-1
touched rex
[[ $(pod_count rex) == 4 ]] || fail "rex should have 3 pods plus the stray one"
[[ $(k get pod stray -o jsonpath='{.metadata.resourceVersion}') == "$stray_rv" ]] || fail "stray pod was modified"
[[ $(k get pod taken-rank-0 -o jsonpath='{.metadata.resourceVersion}') == "$taken_rv" ]] ||
  fail "foreign taken-rank-0 was modified"
[[ -z $(k get pod taken-rank-0 -o jsonpath='{.metadata.ownerReferences}') ]] || fail "foreign pod adopted"
grep -q "taken-rank-0 exists and is not controlled by this job" "$LOG_DIR/operator.log" ||
  fail "operator did not report the foreign taken-rank-0"
stop_operator
log PASS
