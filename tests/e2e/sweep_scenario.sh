# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its k, kn, WORK, BIN_DIR, MAX_NAMES, TRAINER_IMAGE, storage, step,
# check, ok, not_ok, eventually, log): scenario 7, a PetNameTrainingSweep in real pods. A 2 x 2
# grid (batch per rank x learning rate) on the data subset, 2 trials at a time, every trial a
# 1-rank PetNameTrainingJob owned by the sweep, all checkpoints on one volume (one directory per
# trial). The sweep Succeeds with a best trial and the trials' time to the validation-loss goal;
# at no moment do more than 2 trials run; `petname report --sweep` renders the comparison from the
# volume alone; deleting the sweep deletes its trial jobs.

SWEEP_EPOCHS=${E2E_SWEEP_EPOCHS:-3}
# A goal the subset reaches within SWEEP_EPOCHS at the larger learning rate.
SWEEP_GOAL=${E2E_SWEEP_GOAL:-2.6}

sweep_field() { kn get pnts "$1" -o jsonpath="$2"; }
sweep_phase_is() { [[ $(sweep_field "$1" '{.status.phase}') == "$2" ]]; }
# unfinished_trials SWEEP: trial jobs of SWEEP that exist and have not Succeeded or Failed
unfinished_trials() {
  kn get pntj -l "petname.dev/sweep-name=$1" -o json |
    jq '[.items[] | select(.status.phase != "Succeeded" and .status.phase != "Failed")] | length'
}
trial_jobs() { kn get pntj -l "petname.dev/sweep-name=$1" -o name | wc -l; }

scenario_7() {
  local sweep=grid t0=$SECONDS
  checks_plan 10
  log "scenario 7: a 2 x 2 sweep of 1-rank trials, 2 at a time"
  storage "$sweep"
  kn apply -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: $sweep}
spec:
  template:
    replicas: 1
    image: $TRAINER_IMAGE
    imagePullPolicy: Never
    dataset:
      path: /data/pets.csv
      maxNames: $MAX_NAMES
      volume: {hostPath: "$WORK/data"}
    training: {epochs: $SWEEP_EPOCHS, threads: 1}
    checkpoint: {claimName: $sweep-ckpt, everyEpochs: 1}
    runPolicy: {restartBackoffSeconds: 1, backoffLimit: 1}
  parameters:
    - {name: training.batchSizePerReplica, values: [128, 256]}
    - {name: training.learningRate, values: [0.004, 0.016]}
  parallelTrialCount: 2
  objective: {metric: validationLoss, goal: $SWEEP_GOAL}
YAML
  # Until the sweep ends: never more than 2 unfinished trials.
  local most=0 n phase="" deadline=$((SECONDS + 600))
  while ((SECONDS < deadline)); do
    n=$(unfinished_trials "$sweep" 2>/dev/null || echo 0)
    ((n > most)) && most=$n
    phase=$(sweep_field "$sweep" '{.status.phase}' 2>/dev/null || true)
    [[ $phase == Succeeded || $phase == Failed ]] && break
    sleep 0.5
  done
  SCENARIO_SECONDS[7-sweep]=$((SECONDS - t0))
  kn get pnts "$sweep" -o yaml >"$WORK/sweep-$sweep.yaml" 2>&1 || true
  if [[ $phase == Succeeded ]]; then ok "sweep Succeeded"; else stop "sweep Succeeded (phase: $phase)"; return 0; fi
  if ((most <= 2)); then ok "at most 2 trials at a time (saw $most)"; else not_ok "at most 2 trials at a time ($most seen)"; fi
  check "4 trial jobs, all Succeeded" test "$(kn get pntj -l "petname.dev/sweep-name=$sweep" -o json |
    jq '[.items[] | select(.status.phase == "Succeeded")] | length')" = 4
  check "status: 4 trials, 4 succeeded" test \
    "$(sweep_field "$sweep" '{.status.trials}/{.status.trialsSucceeded}')" = "4/4"
  check "status.bestTrial names a trial" test -n "$(sweep_field "$sweep" '{.status.bestTrial}')"
  all_epochs() {
    kn get pnts "$sweep" -o json |
      jq -e --argjson e "$SWEEP_EPOCHS" '[.status.trialStatuses[] | select(.epochs == $e)] | length == 4'
  }
  check "every trial's row shows its $SWEEP_EPOCHS epochs (the last one from the termination message)" all_epochs
  reached_goal() {
    kn get pnts "$sweep" -o json | jq -e '.status.trialStatuses' |
      jq -e '[.[] | select(.timeToGoalSeconds != null and .timeToGoalSeconds > 0)] | length > 0'
  }
  check "a trial's time to goal (validation loss <= $SWEEP_GOAL) in status.trials" reached_goal
  own_dirs() {
    local i
    for i in 000 001 002 003; do [[ -s $WORK/ckpt/$sweep/$sweep-$i/metrics.jsonl ]] || return 1; done
  }
  check "each trial writes in its own directory of the shared volume" own_dirs
  render() {
    "$BIN_DIR/petname" report --sweep "$WORK/ckpt/$sweep" && [[ -s $WORK/ckpt/$sweep/sweep.svg ]]
  }
  check "petname report --sweep renders the comparison from the checkpoint volume" render
  kn delete pnts "$sweep" --wait=false >/dev/null
  # Kubernetes' garbage collector deletes them (their ownerReferences name the sweep); the count
  # is asked again at each try.
  no_trials() { test "$(trial_jobs "$sweep")" = 0; }
  check "deleting the sweep deletes its trial jobs" eventually 120 no_trials
}
