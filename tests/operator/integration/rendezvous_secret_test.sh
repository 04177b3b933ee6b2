#!/usr/bin/env bash
# The operator never reads Secrets. A Secret <job>-rendezvous made by someone else before the
# job (who then knows its value) is deleted and replaced by a fresh one the job controls before
# any rank pod starts; a Normal event RendezvousSecretReplaced says so. Once the job's pods exist,
# its Secret stays (a pod deleted by hand is recreated with the same Secret).
source "$(dirname "$0")/lib.sh"

k create secret generic rex-rendezvous --from-literal=secret=known-to-someone >/dev/null
planted=$(k get secret rex-rendezvous -o jsonpath='{.metadata.uid}')
start_operator
create_job rex 2
wait_until "2 pods" 30 has_pods rex 2
secret=$(k get secret rex-rendezvous -o json)
uid=$(job_field rex '{.metadata.uid}')
[[ $(jq -r '.metadata.uid' <<<"$secret") != "$planted" ]] || fail "the planted Secret was kept"
[[ $(jq -r '.metadata.ownerReferences[0].uid' <<<"$secret") == "$uid" ]] || fail "the Secret is not the job's"
[[ $(jq -r '.data.secret | @base64d' <<<"$secret") =~ ^[0-9a-f]{64}$ ]] || fail "the Secret's value is not fresh"
wait_until "event RendezvousSecretReplaced" 30 has_event rex RendezvousSecretReplaced
log "planted Secret replaced before the pods"

kept=$(jq -r '.metadata.uid' <<<"$secret")
old=$(k get pod rex-rank-1 -o jsonpath='{.metadata.uid}')
k delete pod rex-rank-1 --wait=false >/dev/null
recreated() {
  local now
  now=$(k get pod rex-rank-1 -o jsonpath='{.metadata.uid}') && [[ -n $now && $now != "$old" ]]
}
wait_until "rex-rank-1 recreated" 30 recreated
[[ $(k get secret rex-rendezvous -o jsonpath='{.metadata.uid}') == "$kept" ]] || fail "the job's Secret was replaced while its pods existed"
log "with pods running, the job's Secret stays"
stop_operator
log PASS
