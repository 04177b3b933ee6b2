#!/usr/bin/env bash
# Nothing silent: pods that cannot start and checkpoints that die with the pods.
#  - A rank whose trainer waits with ErrImagePull / ImagePullBackOff: condition PodsReady=False
#    with the kubelet's reason and "<pod>: <message>", status.reason in `kubectl get pntj`'s REASON
#    column, one Warning event, within one reconcile; the job stays Pending under the default
#    startErrorTimeoutSeconds (300). A rank Unschedulable: the same, reason Unschedulable.
#  - runPolicy.startErrorTimeoutSeconds: 2 and InvalidImageName: the job Failed with that reason,
#    a message naming the image, its pending pods deleted (cleanPodPolicy Running), an Event.
#  - startErrorTimeoutSeconds: 1 and Unschedulable: still Pending (never failed).
#  - No checkpoint claim: CheckpointsPersistent=False, reason EmptyDir, one Warning event
#    CheckpointsNotPersistent; with a claim: True, and once Succeeded status.modelPath and
#    status.model name the model, shown by `kubectl get pntj -o wide`.
# There is no kubelet: pod statuses are patched as a kubelet and a scheduler would write them.
source "$(dirname "$0")/lib.sh"

# wait_container POD REASON MESSAGE: the trainer container waiting as the kubelet reports it.
wait_container() {
  k patch pod "$1" --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Pending\",
    \"containerStatuses\":[{\"name\":\"trainer\",\"image\":\"localhost/petname:dev\",\"imageID\":\"\",
    \"ready\":false,\"restartCount\":0,
    \"state\":{\"waiting\":{\"reason\":\"$2\",\"message\":\"$3\"}}}]}}" >/dev/null
}
unschedulable() {
  k patch pod "$1" --subresource=status --type=merge -p "{\"status\":{\"phase\":\"Pending\",
    \"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",
    \"message\":\"0/1 nodes are available: 1 Insufficient cpu.\",
    \"lastTransitionTime\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}]}}" >/dev/null
}
reason_is() { [[ $(job_field "$1" '{.status.reason}') == "$2" ]]; }
# get_shows JOB WORD: `kubectl get pntj JOB` has a REASON column showing WORD.
get_shows() {
  local out
  out=$(k get pntj "$1")
  [[ $(head -n 1 <<<"$out") == *REASON* ]] && [[ $(tail -n 1 <<<"$out") == *" $2 "* ]]
}
# event_count JOB REASON: how often an Event of REASON was recorded on JOB (repeats are aggregated
# into one Event's count).
event_count() {
  k get events --field-selector "involvedObject.name=$1" -o json |
    jq --arg r "$2" '[.items[] | select(.reason == $r) | .count // 1] | add // 0'
}

start_operator

# ---- image pull errors: reported at once, not failed under the default timeout --------------
create_job pull 2
wait_until "pull pods" 30 has_pods pull 2
wait_until "CheckpointsPersistent False" 20 cond_is pull CheckpointsPersistent False
cond_reason_is pull CheckpointsPersistent EmptyDir || fail "reason $(cond pull CheckpointsPersistent reason)"
[[ $(cond pull CheckpointsPersistent message) == *"lost when the pods go"* ]] ||
  fail "CheckpointsPersistent message: $(cond pull CheckpointsPersistent message)"
wait_until "CheckpointsNotPersistent event" 20 has_event pull CheckpointsNotPersistent
wait_until "PodsStarting" 20 cond_reason_is pull PodsReady PodsStarting

wait_container pull-rank-0 ErrImagePull 'rpc error: pull access denied for localhost/petname'
wait_until "PodsReady ErrImagePull" 20 cond_reason_is pull PodsReady ErrImagePull
backoff='Back-off pulling image \"localhost/petname:dev\"'
wait_container pull-rank-0 ImagePullBackOff "$backoff"
wait_until "PodsReady ImagePullBackOff" 20 cond_reason_is pull PodsReady ImagePullBackOff
cond_is pull PodsReady False || fail "PodsReady $(cond pull PodsReady status)"
[[ $(cond pull PodsReady message) == 'pull-rank-0: Back-off pulling image "localhost/petname:dev"' ]] ||
  fail "PodsReady message: $(cond pull PodsReady message)"
wait_until "status.reason ImagePullBackOff" 20 reason_is pull ImagePullBackOff
get_shows pull ImagePullBackOff || fail "kubectl get pntj: $(k get pntj pull)"
wait_until "ErrImagePull event" 20 has_event pull ErrImagePull
[[ $(event_count pull ImagePullBackOff) == 0 ]] || fail "a second event for the same error"
phase_is pull Pending || fail "phase $(job_field pull '{.status.phase}') under the 300 s default"

unschedulable pull-rank-1
set_phase pull-rank-0 Running
wait_until "PodsReady Unschedulable" 20 cond_reason_is pull PodsReady Unschedulable
[[ $(cond pull PodsReady message) == "pull-rank-1: 0/1 nodes are available: 1 Insufficient cpu." ]] ||
  fail "Unschedulable message: $(cond pull PodsReady message)"
wait_until "REASON Unschedulable" 20 get_shows pull Unschedulable
set_phase pull-rank-1 Running
wait_until "PodsReady True" 20 cond_is pull PodsReady True
wait_until "status.reason cleared" 20 reason_is pull ""

# ---- a start error that lasts: Failed with its reason -------------------------------------------
create_job badimage 2 '  runPolicy: {startErrorTimeoutSeconds: 2}'
wait_until "badimage pods" 30 has_pods badimage 2
wait_container badimage-rank-1 InvalidImageName 'Failed to apply default image tag \"Localhost/Petname\"'
wait_until "badimage Failed" 30 phase_is badimage Failed
cond_reason_is badimage Failed InvalidImageName || fail "Failed reason $(cond badimage Failed reason)"
[[ $(cond badimage Failed message) == *"badimage-rank-1: container trainer did not start within 2 s"*"for image localhost/petname:dev"* ]] ||
  fail "Failed message: $(cond badimage Failed message)"
reason_is badimage InvalidImageName || fail "status.reason $(job_field badimage '{.status.reason}')"
wait_until "InvalidImageName event" 20 has_event badimage InvalidImageName
wait_until "pending pods deleted" 30 has_pods badimage 0

# ---- Unschedulable is never failed ------------------------------------------------------------
create_job stuck 1 '  runPolicy: {startErrorTimeoutSeconds: 1}'
wait_until "stuck pod" 30 has_pods stuck 1
unschedulable stuck-rank-0
wait_until "stuck Unschedulable" 20 reason_is stuck Unschedulable
# Once its 1 s start-error timeout has passed, a reconcile (after a touch) still leaves it Pending.
sleep 2
touched stuck
phase_is stuck Pending || fail "an Unschedulable job was $(job_field stuck '{.status.phase}')"

# ---- a claim: persistent checkpoints, and the model's place once Succeeded ----------------------
create_job claimed 1 '  checkpoint: {claimName: ckpt, subPath: runs/one}'
wait_until "claimed pod" 30 has_pods claimed 1
wait_until "CheckpointsPersistent True" 20 cond_is claimed CheckpointsPersistent True
cond_reason_is claimed CheckpointsPersistent PersistentVolumeClaim ||
  fail "reason $(cond claimed CheckpointsPersistent reason)"
set_phase claimed-rank-0 Succeeded
wait_until "claimed Succeeded" 20 phase_is claimed Succeeded
[[ $(job_field claimed '{.status.modelPath}') == /checkpoints/runs/one/model.safetensors ]] ||
  fail "modelPath $(job_field claimed '{.status.modelPath}')"
[[ $(job_field claimed '{.status.model.claimName} {.status.model.subPath}') == "ckpt runs/one/model.safetensors" ]] ||
  fail "model $(job_field claimed '{.status.model}')"
wide=$(k get pntj claimed -o wide)
[[ $(head -n 1 <<<"$wide") == *MODEL* && $(tail -n 1 <<<"$wide") == *" /checkpoints/runs/one/model.safetensors"* ]] ||
  fail "kubectl get pntj -o wide: $wide"
has_event claimed CheckpointsNotPersistent && fail "a CheckpointsNotPersistent event with a claim"
[[ $(event_count pull CheckpointsNotPersistent) == 1 ]] ||
  fail "CheckpointsNotPersistent recorded $(event_count pull CheckpointsNotPersistent) times"
[[ $(event_count pull ErrImagePull) == 1 ]] || fail "ErrImagePull recorded $(event_count pull ErrImagePull) times"

stop_operator
log PASS
