#!/usr/bin/env bash
# A PetNameTrainingSweep on the real API server: a 2 x 2 grid with parallelTrialCount 2 runs
# exactly two trial jobs at a time (polled while trials finish), the status counts trials and
# names the best; an operator restart mid-sweep duplicates no trial; the sweep Succeeds once
# every trial has; deleting it garbage-collects its trials. Trials finish as pods would: the
# test moves rank pods to Succeeded, the operator's job controller does the rest. A sweep whose
# parallel trials could run more pods at once than --max-pods-per-sweep (replicas varied, which
# the CRD's rule cannot see) is refused: Failed, reason TooManyPods, no trial.
source "$(dirname "$0")/lib.sh"

create_sweep() {
  k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: grid}
spec:
  template:
    image: petname:test
    dataset: {path: /data/pets.csv}
    checkpoint: {path: /ck}
  parameters:
    - {name: training.learningRate, values: [0.001, 0.004]}
    - {name: training.batchSizePerReplica, values: [256, 1024]}
  parallelTrialCount: 2
  objective: {metric: validationLoss, goal: 1.6}
YAML
}
trials() { k get pntj -l petname.dev/sweep-name=grid -o json; }
trial_count() { trials | jq '.items | length'; }
unfinished() {
  trials | jq '[.items[] | select(.status.phase != "Succeeded" and .status.phase != "Failed")] | length'
}
sweep_field() { k get pnts grid -o jsonpath="$1"; }
# at_most_two: never more than parallelTrialCount unfinished trial jobs
at_most_two() {
  local n
  n=$(unfinished)
  ((n <= 2)) || fail "$n unfinished trial jobs (parallelTrialCount 2)"
}
# finish TRIAL LOSS: its rank pod runs, the job's status.progress gets validation loss LOSS (as
# the progress scraper would put it; the job controller keeps a progress it did not scrape), and
# the pod succeeds, as a kubelet would report; the job controller moves the job to Succeeded.
finish() {
  wait_until "pod $1-rank-0" 30 k get pod "$1-rank-0"
  set_phase "$1-rank-0" Running
  wait_until "$1 Running" 30 phase_is "$1" Running
  k patch pntj "$1" --subresource=status --type=merge \
    -p "{\"status\":{\"progress\":{\"epoch\":1,\"epochs\":10,\"validationLoss\":$2}}}" >/dev/null
  set_phase "$1-rank-0" Succeeded
  wait_until "$1 Succeeded" 30 phase_is "$1" Succeeded
}
has_trials() { [[ $(trial_count) == "$1" ]]; }
sweep_is() { [[ $(sweep_field '{.status.phase}') == "$1" ]]; }

start_operator
create_sweep
wait_until "2 trial jobs" 30 has_trials 2
for _ in $(seq 10); do
  at_most_two
  [[ $(trial_count) == 2 ]] || fail "expected exactly 2 trial jobs, got $(trial_count)"
  sleep 0.2
done
names=$(trials | jq -r '[.items[].metadata.name] | sort | join(" ")')
[[ $names == "grid-000 grid-001" ]] || fail "trial names: $names"
spec=$(k get pntj grid-001 -o json)
[[ $(jq -r '.spec.training.learningRate' <<<"$spec") == 0.001 ]] || fail "grid-001 learningRate"
[[ $(jq -r '.spec.training.batchSizePerReplica' <<<"$spec") == 1024 ]] || fail "grid-001 batch"
[[ $(jq -r '.spec.checkpoint.path' <<<"$spec") == /ck ]] || fail "grid-001 checkpoint path"
[[ $(jq -r '.spec.checkpoint.subPath' <<<"$spec") == grid-001 ]] || fail "grid-001 checkpoint subPath"
# The rank mounts the whole volume at /ck and writes its checkpoints in /ck/grid-001.
wait_until "pod grid-001-rank-0" 30 k get pod grid-001-rank-0
pod=$(k get pod grid-001-rank-0 -o json)
[[ $(jq -r '.spec.containers[0].volumeMounts[] | select(.name == "checkpoints") | .mountPath' \
  <<<"$pod") == /ck ]] || fail "grid-001 mounts its checkpoint volume elsewhere"
jq -e '.spec.containers[0].args | index("--checkpoint-dir") as $i | .[$i + 1] == "/ck/grid-001"' \
  <<<"$pod" >/dev/null || fail "grid-001 --checkpoint-dir: $(jq -c '.spec.containers[0].args' <<<"$pod")"
[[ $(jq -c '.spec.training.goal' <<<"$spec") == '{"metric":"validationLoss","stop":false,"value":1.6}' ]] ||
  fail "grid-001 goal: $(jq -c '.spec.training.goal' <<<"$spec")"
[[ $(jq -r '.metadata.ownerReferences[0].kind' <<<"$spec") == PetNameTrainingSweep ]] ||
  fail "grid-001 not owned by the sweep"
trials_are() { [[ $(sweep_field '{.status.trials}/{.status.trialsPending}') == "$1" ]]; }
wait_until "status: 2 trials pending" 30 trials_are 2/2
[[ $(sweep_field '{.status.phase}') == Running ]] || fail "sweep phase $(sweep_field '{.status.phase}')"

finish grid-000 1.7
wait_until "3 trial jobs" 30 has_trials 3
at_most_two
succeeded_is() { [[ $(sweep_field '{.status.trialsSucceeded}') == "$1" ]]; }
wait_until "status: 1 succeeded" 30 succeeded_is 1

# Restart the operator mid-sweep: no duplicates, the same trial uids.
before=$(trials | jq -r '.items[] | "\(.metadata.name) \(.metadata.uid)"' | sort)
stop_operator KILL
start_operator
wait_until "the restarted operator caught up" 30 caught_up
at_most_two
[[ $(trial_count) == 3 ]] || fail "after the restart: $(trial_count) trial jobs, expected 3"
after=$(trials | jq -r '.items[] | "\(.metadata.name) \(.metadata.uid)"' | sort)
[[ $before == "$after" ]] || fail "trials replaced after the restart: $before vs $after"

finish grid-001 1.5
wait_until "4 trial jobs" 30 has_trials 4
at_most_two
finish grid-002 1.65
finish grid-003 1.8
wait_until "sweep Succeeded" 30 sweep_is Succeeded
[[ $(sweep_field '{.status.trials}/{.status.trialsSucceeded}/{.status.trialsRunning}') == 4/4/0 ]] ||
  fail "counts: $(sweep_field '{.status.trials}/{.status.trialsSucceeded}/{.status.trialsRunning}')"
[[ $(sweep_field '{.status.trialStatuses[3].parameters.training\.learningRate}') == 0.004 ]] ||
  fail "trial row parameters: $(sweep_field '{.status.trialStatuses[3]}')"
[[ -n $(sweep_field '{.status.completionTime}') ]] || fail "no completionTime"
[[ $(sweep_field '{.status.bestTrial}') == grid-001 ]] || fail "bestTrial: $(sweep_field '{.status.bestTrial}')"
[[ $(sweep_field '{.status.trialStatuses[1].bestValidationLoss}') == 1.5 ]] ||
  fail "grid-001's row: $(sweep_field '{.status.trialStatuses[1]}')"
cond=$(sweep_field '{.status.conditions[?(@.type=="Succeeded")].status}')
[[ $cond == True ]] || fail "Succeeded condition: $cond"
out=$(k get pnts grid 2>&1)
[[ $(head -n1 <<<"$out" | tr -s ' ') == "NAME PHASE TRIALS RUNNING SUCCEEDED BEST AGE" ]] ||
  fail "printer columns: $out"
[[ $(trial_count) == 4 ]] || fail "expected 4 trial jobs in the end"

k delete pnts grid --wait=false >/dev/null
wait_until "trials garbage-collected" 60 has_trials 0

k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: wide}
spec:
  template: {image: petname:test, dataset: {path: /data/pets.csv}}
  parameters:
    - {name: replicas, values: [100, 200]}
  parallelTrialCount: 2
YAML
wide_field() { k get pnts wide -o jsonpath="$1"; }
refused() { [[ $(wide_field '{.status.conditions[?(@.type=="Failed")].reason}') == TooManyPods ]]; }
wait_until "sweep wide Failed with reason TooManyPods" 30 refused
[[ $(wide_field '{.status.phase}') == Failed ]] || fail "wide: phase $(wide_field '{.status.phase}')"
message=$(wide_field '{.status.conditions[?(@.type=="Failed")].message}')
[[ $message == *"may run 300 pods at once, more than the 256"* ]] || fail "wide: message $message"
[[ $(k get pntj -l petname.dev/sweep-name=wide -o name | wc -l) == 0 ]] || fail "wide has trials"
stop_operator
log PASS
