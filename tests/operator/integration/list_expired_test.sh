#!/usr/bin/env bash
# A paged list that expires mid-way (docs/contributing/faults.md). A sweep's two trials run; the operator
# stops; 40 more PetNameTrainingJobs labelled with the sweep's name (suspended, not its trials)
# make both job lists (the job controller's, and the sweep controller's by label) six pages long
# (the operator lists 8 objects a page: kPageLimit in operator/kube/informer.cc). The operator
# restarts behind fault_proxy.py, which answers the first page 2 of each list with 410 Expired,
# as the API server does when a continue token expired. The informers must list again from the
# first page: every job is reconciled (all 40 reach Suspended), and the sweep still sees its
# trials (their rows stay Running; none reads as "the trial job was deleted", as it would from an
# empty cache).
# shellcheck disable=SC2016 # the single-quoted arguments of `requests` are awk conditions
source "$(dirname "$0")/lib.sh"

EXTRA=40
k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingSweep
metadata: {name: keep}
spec:
  template:
    image: petname:test
    dataset: {path: /data/pets.csv}
  parameters:
    - {name: training.learningRate, values: [0.001, 0.002]}
  parallelTrialCount: 2
YAML
sweep_field() { k get pnts keep -o jsonpath="$1"; }
row_phases() { sweep_field '{.status.trialStatuses[*].phase}'; }
rows_are() { [[ $(row_phases) == "$1" ]]; }

start_operator
for t in keep-000 keep-001; do
  wait_until "pod $t-rank-0" 30 k get pod "$t-rank-0"
  set_phase "$t-rank-0" Running
  wait_until "$t Running" 30 phase_is "$t" Running
done
wait_until "both trial rows Running" 30 rows_are "Running Running"
stop_operator

jobs=$(mktemp)
AT_EXIT+=("rm -f $jobs")
for ((i = 0; i < EXTRA; i++)); do
  printf -- '---\napiVersion: petname.dev/v1alpha1\nkind: PetNameTrainingJob\n'
  printf 'metadata: {name: extra-%03d, labels: {petname.dev/sweep-name: keep}}\n' "$i"
  printf 'spec: {replicas: 1, image: "petname:test", dataset: {path: /data/pets.csv},'
  printf ' runPolicy: {suspend: true}}\n'
done >"$jobs"
k create -f "$jobs" >/dev/null
log "created $EXTRA suspended jobs labelled petname.dev/sweep-name=keep"

start_fault_proxy
echo 410 >"$PROXY_DIR/page_fault"
start_operator
suspended() { [[ $(k get pntj -o json | jq '[.items[] | select(.status.phase == "Suspended")] | length') == "$EXTRA" ]]; }
wait_until "all $EXTRA extra jobs Suspended" 120 suspended
# The sweep's controller observes its trials after the restart: a new epoch reaches its row.
k patch pntj keep-000 --subresource=status --type=merge \
  -p '{"status":{"progress":{"epoch":1,"epochs":5,"validationLoss":1.9}}}' >/dev/null
recorded() { [[ $(sweep_field '{.status.trialStatuses[0].epochs}') == 1 ]]; }
wait_until "epoch 1 of keep-000 in the sweep's status" 30 recorded
rows_are "Running Running" || fail "trial rows after the restart: $(row_phases)"
[[ $(sweep_field '{.status.phase}') == Running ]] || fail "sweep phase $(sweep_field '{.status.phase}')"

requests() { awk "$1" "$PROXY_DIR/requests.log" | wc -l; }
expired=$(requests '$1 == "GET" && $2 ~ /petnametrainingjobs\?/ && $2 ~ /continue=/ && $4 == 410')
relisted=$(requests '$1 == "GET" && $2 ~ /petnametrainingjobs\?limit=[0-9]+/ && $2 !~ /continue=/ && $4 == 200')
log "pages answered 410: $expired; first pages listed: $relisted"
((expired == 2)) || fail "expected a 410 on page 2 of both job lists, saw $expired"
((relisted >= 4)) || fail "expected both job lists started over from page 1, saw $relisted first pages"
grep -q "listing again from the first page" "$LOG_DIR/operator.log" || fail "no relist logged"
stop_operator
log PASS
