#!/usr/bin/env bash
# Deleting the job garbage-collects its pods and Service (kube-controller-manager's GC follows
# the ownerReferences the operator set).
source "$(dirname "$0")/lib.sh"

start_operator
create_job rex 3
wait_until "3 pods" 30 has_pods rex 3
wait_until "service" 30 k get service rex
k delete pntj rex --wait=false >/dev/null
wait_until "pods garbage-collected" 60 has_pods rex 0
no_service() { ! k get service rex; }
wait_until "service garbage-collected" 60 no_service
stop_operator
log PASS
