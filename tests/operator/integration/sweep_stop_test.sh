#!/usr/bin/env bash
# Median stopping on the real API server: two trials report a lower validation loss after epoch
# 1 than the third, which the operator then suspends (spec.runPolicy.suspend; the job controller
# deletes its pod) and reports Stopped; the sweep Succeeds once the others have. Progress is
# written as the progress scraper would (the job controller keeps a progress it did not scrape).
# Then a sweep whose second failed trial passes maxFailedTrialCount 1: it Fails, and its trial
# still running is suspended and reported Stopped with the reason.
source "$(dirname "$0")/lib.sh"

k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: median}
spec:
  template:
    image: petname:test
    dataset: {path: /data/pets.csv}
  parameters:
    - {name: training.learningRate, values: [0.001, 0.002, 0.003]}
  parallelTrialCount: 3
  earlyStopping: {algorithm: medianStop, minTrialsRequired: 2}
YAML
sweep_field() { k get pnts median -o jsonpath="$1"; }
# running TRIAL: its rank pod runs and the job is Running.
running() {
  wait_until "pod $1-rank-0" 30 k get pod "$1-rank-0"
  set_phase "$1-rank-0" Running
  wait_until "$1 Running" 30 phase_is "$1" Running
}
# epoch TRIAL N LOSS: the job's status.progress after epoch N.
epoch() {
  k patch pntj "$1" --subresource=status --type=merge \
    -p "{\"status\":{\"progress\":{\"epoch\":$2,\"epochs\":5,\"validationLoss\":$3}}}" >/dev/null
}
recorded() { [[ $(sweep_field "{.status.trialStatuses[$1].epochs}") == "$2" ]]; }

start_operator
for t in median-000 median-001 median-002; do running "$t"; done
epoch median-000 1 1.9
epoch median-001 1 2.0
wait_until "epoch 1 of the first two recorded" 30 recorded 1 1
wait_until "epoch 1 of the first two recorded" 30 recorded 0 1
epoch median-000 2 1.7
epoch median-001 2 1.8
epoch median-002 1 2.6
suspended() { [[ $(job_field median-002 '{.spec.runPolicy.suspend}') == true ]]; }
wait_until "median-002 suspended" 30 suspended
stopped() { [[ $(sweep_field '{.status.trialStatuses[2].phase}') == Stopped ]]; }
wait_until "median-002 Stopped" 30 stopped
[[ $(job_field median-000 '{.spec.runPolicy.suspend}') == false ]] || fail "median-000 suspended"
wait_until "median-002's pod deleted" 30 has_pods median-002 0
for t in median-000 median-001; do
  set_phase "$t-rank-0" Succeeded
  wait_until "$t Succeeded" 30 phase_is "$t" Succeeded
done
sweep_is() { [[ $(sweep_field '{.status.phase}') == "$1" ]]; }
wait_until "sweep Succeeded" 30 sweep_is Succeeded
[[ $(sweep_field '{.status.trialsSucceeded}/{.status.trialsStopped}') == 2/1 ]] ||
  fail "counts: $(sweep_field '{.status.trialsSucceeded}/{.status.trialsStopped}')"
[[ $(sweep_field '{.status.bestTrial}') == median-000 ]] || fail "bestTrial: $(sweep_field '{.status.bestTrial}')"

k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: doomed}
spec:
  template:
    image: petname:test
    dataset: {path: /data/pets.csv}
    runPolicy: {restartPolicy: Never}
  parameters:
    - {name: training.learningRate, values: [0.001, 0.002, 0.003]}
  parallelTrialCount: 3
  maxFailedTrialCount: 1
YAML
doomed_field() { k get pnts doomed -o jsonpath="$1"; }
for t in doomed-000 doomed-001 doomed-002; do running "$t"; done
for t in doomed-000 doomed-001; do
  set_phase "$t-rank-0" Failed
  wait_until "$t Failed" 30 phase_is "$t" Failed
done
doomed_failed() { [[ $(doomed_field '{.status.phase}') == Failed ]]; }
wait_until "sweep doomed Failed" 30 doomed_failed
doomed_suspended() { [[ $(job_field doomed-002 '{.spec.runPolicy.suspend}') == true ]]; }
wait_until "doomed-002 suspended" 30 doomed_suspended
[[ $(doomed_field '{.status.trialStatuses[2].phase}') == Stopped ]] ||
  fail "doomed-002: $(doomed_field '{.status.trialStatuses[2]}')"
[[ $(doomed_field '{.status.trialStatuses[2].message}') == "stopped: the sweep failed"* ]] ||
  fail "doomed-002 message: $(doomed_field '{.status.trialStatuses[2].message}')"
wait_until "doomed-002's pod deleted" 30 has_pods doomed-002 0
stop_operator
log PASS
