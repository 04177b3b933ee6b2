#!/usr/bin/env bash
# The rendezvous Secret <job>-rendezvous. The operator reads no Secret's data; when one exists
# before the job's pods, it reads its metadata only:
#  - one the job does not control is someone else's: left alone (same uid, same value), a Warning
#    event RendezvousSecretConflict names it and no rank pod is created until it is deleted; then
#    the job gets a fresh Secret of its own and its pods;
#  - one that points its owner reference at the job, but that the operator did not make (whoever
#    made it knows its value) is deleted and replaced by a fresh one before any rank pod starts; a
#    Normal event RendezvousSecretReplaced says so.
# Once the job's pods exist, its Secret stays (a pod deleted by hand is recreated with the same
# Secret).
source "$(dirname "$0")/lib.sh"

k create secret generic rex-rendezvous --from-literal=secret=known-to-someone >/dev/null
planted=$(k get secret rex-rendezvous -o jsonpath='{.metadata.uid}')
start_operator
create_job rex 2
wait_until "event RendezvousSecretConflict" 30 has_event rex RendezvousSecretConflict
k get events --field-selector involvedObject.name=rex -o json |
  jq -e '.items[] | select(.reason == "RendezvousSecretConflict") | .type == "Warning" and
    (.message | contains("rex-rendezvous exists and is not controlled by this job"))' >/dev/null ||
  fail "the conflict event does not name the Secret"
secret=$(k get secret rex-rendezvous -o json)
[[ $(jq -r '.metadata.uid' <<<"$secret") == "$planted" ]] || fail "someone else's Secret was replaced"
[[ $(jq -r '.data.secret | @base64d' <<<"$secret") == known-to-someone ]] || fail "someone else's Secret was changed"
[[ $(pod_count rex) == 0 ]] || fail "rank pods were created beside someone else's Secret"
grep -q "rex-rendezvous exists and is not controlled by this job" "$LOG_DIR/operator.log" ||
  fail "the operator did not log the conflict"
log "someone else's Secret left alone, no pods, the conflict named"

k delete secret rex-rendezvous >/dev/null
wait_until "2 pods once the foreign Secret is gone" 90 has_pods rex 2
secret=$(k get secret rex-rendezvous -o json)
uid=$(job_field rex '{.metadata.uid}')
[[ $(jq -r '.metadata.ownerReferences[0].uid' <<<"$secret") == "$uid" ]] || fail "the Secret is not the job's"
[[ $(jq -r '.data.secret | @base64d' <<<"$secret") =~ ^[0-9a-f]{64}$ ]] || fail "the Secret's value is not fresh"
log "with the foreign Secret gone, a fresh one of the job's and its pods"

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

# A Secret that claims the job as its controller, made while the operator was down.
stop_operator
create_job max 1
max_uid=$(job_field max '{.metadata.uid}')
k create -f - >/dev/null <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: max-rendezvous
  ownerReferences: [{apiVersion: petname.dev/v1alpha1, kind: PetNameTrainingJob, name: max, uid: "$max_uid", controller: true}]
stringData: {secret: known-to-someone}
YAML
forged=$(k get secret max-rendezvous -o jsonpath='{.metadata.uid}')
start_operator
wait_until "1 pod of max" 30 has_pods max 1
secret=$(k get secret max-rendezvous -o json)
[[ $(jq -r '.metadata.uid' <<<"$secret") != "$forged" ]] || fail "the Secret made by someone else for max was kept"
[[ $(jq -r '.data.secret | @base64d' <<<"$secret") =~ ^[0-9a-f]{64}$ ]] || fail "max's Secret's value is not fresh"
wait_until "event RendezvousSecretReplaced" 30 has_event max RendezvousSecretReplaced
log "a Secret made for the job by someone else replaced before the pods"
stop_operator
log PASS
