#!/usr/bin/env bash
# Tests the PetNameTrainingJob and PetNameTrainingSweep CRDs against a REAL kube-apiserver.
#
#   tests/crds/run.sh KUBECONFIG
#
# Installs crds/petname.dev_petnametrainingjobs.yaml (cluster-wide, left installed), works in a fresh
# namespace crd-test-* (deleted at the end) and checks: Established, `kubectl explain`, defaulting of
# examples/cpu-job.yaml, that tests/crds/valid/*.yaml are accepted, that each tests/crds/invalid/*.yaml
# (the one invalid corpus; the operator's invalid_test.sh reads it too)
# is rejected by the server with a message containing its `# expect: <substring>` line (through
# `kubectl apply --validate=strict` and through a raw POST with ?fieldValidation=Strict), pruning of unknown
# fields, the status subresource and the printer columns.
# Uses the cached kubectl (tests/cluster/env.sh). Last line: `N passed, N failed`; exit 1 when a check
# failed, the run stopped early or fewer checks passed than planned (tests/lib/checks.sh).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../cluster/env.sh
source "$ROOT/tests/cluster/env.sh"

KC=${1:?usage: run.sh KUBECONFIG}
[[ -x $KUBECTL ]] || { echo "kubectl not cached at $KUBECTL; run tests/cluster/build.sh" >&2; exit 2; }
CRD="$ROOT/crds/petname.dev_petnametrainingjobs.yaml"
SWEEP_CRD="$ROOT/crds/petname.dev_petnametrainingsweeps.yaml"
EXAMPLE="$ROOT/examples/cpu-job.yaml"
NS="crd-test-$$-$RANDOM"
API="/apis/petname.dev/v1alpha1/namespaces/$NS/petnametrainingjobs"
SWEEP_API="/apis/petname.dev/v1alpha1/namespaces/$NS/petnametrainingsweeps"
TMP=$(mktemp -d)
# shellcheck source-path=SCRIPTDIR source=../lib/checks.sh
source "$ROOT/tests/lib/checks.sh"
checks_plan 51
checks_plan_files 1 "$HERE/valid" '*.yaml'
checks_plan_files 2 "$HERE/invalid" '*.yaml'

k() { "$KUBECTL" --kubeconfig "$KC" "$@"; }
pass() { ok "$1"; }
# fail NAME [DETAIL]: a failed check, with the first 20 lines of DETAIL as `# ` lines
fail() {
  not_ok "$1"
  [[ -z ${2:-} ]] || printf '%s\n' "$2" | sed -n '1,20s/^/    # /p'
}
# check NAME CMD...: passes when CMD succeeds (its output shown when it fails)
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}
# retry SECONDS CMD...: runs CMD until it succeeds (for things the apiserver publishes asynchronously)
retry() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do ((SECONDS < deadline)) || return 1; sleep 1; done
}
finish() {
  local rc=$?
  k delete namespace "$NS" --wait=false --ignore-not-found >/dev/null 2>&1 || true
  rm -rf "$TMP"
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM

# ---- the CRD itself ---------------------------------------------------------------------------
setup "apply CRD" k apply -f "$CRD"
# crd_condition NAME CONDITION: True. (kubectl wait fails at once, instead of waiting, while a
# just-created CRD has no status.conditions yet: "accessor error: <nil> is of the type <nil>".)
crd_condition() {
  [[ $(k get "crd/$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status}") == True ]]
}
check "CRD Established" retry 60 crd_condition petnametrainingjobs.petname.dev Established
check "CRD NamesAccepted" retry 60 crd_condition petnametrainingjobs.petname.dev NamesAccepted
setup "apply sweep CRD" k apply -f "$SWEEP_CRD"
check "sweep CRD Established" retry 60 crd_condition petnametrainingsweeps.petname.dev Established
# explain_ok: the descriptions, read with kubectl's line wrapping undone
explain_ok() {
  k explain pntj.spec.training >"$TMP/explain" 2>&1 &&
    tr -s '[:space:]' ' ' <"$TMP/explain" >"$TMP/explain.flat" &&
    grep -q 'Hyper-parameters of the training run' "$TMP/explain.flat" &&
    grep -q 'batchSizePerReplica' "$TMP/explain.flat" &&
    grep -q 'Mini-batch size of each rank' "$TMP/explain.flat" &&
    grep -q 'Defaults to 4096' "$TMP/explain.flat"
}
if retry 60 explain_ok; then pass "kubectl explain pntj.spec.training shows descriptions"; else
  fail "kubectl explain pntj.spec.training shows descriptions" "$(cat "$TMP/explain")"; fi
# (no `cmd | grep -q` under pipefail: grep's early exit would SIGPIPE the writer)
out=$(k explain pntj.spec.runPolicy.restartPolicy 2>&1 || true)
if grep -q 'restarts only on retryable exit codes' <<<"$out"; then
  pass "kubectl explain of a nested field"; else fail "kubectl explain of a nested field" "$out"; fi
out=$(k explain pntj.spec.resources.processesPerReplica 2>&1 || true)
if grep -q "like torchrun's --nproc-per-node" <<<"$out"; then
  pass "kubectl explain pntj.spec.resources.processesPerReplica"; else
  fail "kubectl explain pntj.spec.resources.processesPerReplica" "$out"; fi

out=$(k explain pntj.spec.template.spec.containers 2>&1 | tr -s '[:space:]' ' ' || true)
if grep -q "Sidecar containers (core/v1 Container) added to every rank pod beside the operator's" <<<"$out"; then
  pass "kubectl explain pntj.spec.template.spec.containers"; else
  fail "kubectl explain pntj.spec.template.spec.containers" "$out"; fi
out=$(k explain pntj.spec.template.spec.restartPolicy 2>&1 || true)
if grep -q "Not settable" <<<"$out"; then
  pass "kubectl explain says restartPolicy is the operator's"; else
  fail "kubectl explain says restartPolicy is the operator's" "$out"; fi

setup "create namespace $NS" k create namespace "$NS"

# ---- the example and its defaults ---------------------------------------------------------------
check "apply example cpu-job (--validate=strict)" k apply --validate=strict -n "$NS" -f "$EXAMPLE"
declare -A DEFAULTS=(
  [.spec.replicas]=2 [.spec.imagePullPolicy]=IfNotPresent [.spec.resources.gpusPerReplica]=0
  [.spec.resources.cpu]=500m [.spec.resources.memory]=2Gi
  [.spec.dataset.volume.mountPath]=/data [.spec.dataset.volume.readOnly]=true
  [.spec.training.epochs]=2 [.spec.training.batchSizePerReplica]=4096 [.spec.training.learningRate]=0.001
  [.spec.training.precision]=fp32 [.spec.training.seed]=42 [.spec.training.validationFraction]=0.05
  [.spec.training.warmupSteps]=0 [.spec.training.lrSchedule]=constant
  [.spec.checkpoint.path]=/checkpoints [.spec.checkpoint.everyEpochs]=1 [.spec.checkpoint.keep]=3
  [.spec.runPolicy.restartPolicy]=OnFailure [.spec.runPolicy.backoffLimit]=3
  [.spec.runPolicy.cleanPodPolicy]=Running [.spec.runPolicy.suspend]=false
  [.spec.scheduling.gang.enabled]=false [.spec.scheduling.gang.scheduler]=coscheduling
  [.spec.metrics.port]=9400 [.spec.masterPort]=29500
)
k get pntj cpu-job -n "$NS" -o json >"$TMP/cpu-job.json" 2>&1 || true
for path in $(printf '%s\n' "${!DEFAULTS[@]}" | sort); do
  got=$(k get pntj cpu-job -n "$NS" -o "jsonpath={$path}" 2>&1 || true)
  if [[ $got == "${DEFAULTS[$path]}" ]]; then pass "default $path = $got"; else
    fail "default $path = ${DEFAULTS[$path]}" "got: '$got'"; fi
done
absent=$(k get pntj cpu-job -n "$NS" -o 'jsonpath={.spec.backend}{.spec.training.threads}{.status}' 2>&1 || true)
if [[ -z $absent ]]; then pass "no defaults for backend, training.threads, status"; else
  fail "no defaults for backend, training.threads, status" "got: '$absent'"; fi

# ---- valid corpus -------------------------------------------------------------------------------
for f in "$HERE"/valid/*.yaml; do
  check "valid $(basename "$f") accepted" k apply --validate=strict -n "$NS" -f "$f"
done
got=$(k get pnts sweep-full -n "$NS" -o 'jsonpath={.spec.parameters[0].scale}/{.spec.template.training.seed}/{.spec.objective.metric}' 2>&1 || true)
if [[ $got == log/42/validationLoss ]]; then pass "sweep kept its fields and got the template's defaults"; else
  fail "sweep kept its fields and got the template's defaults" "got: $got"; fi
if [[ $(k get pntj gloo-gpu -n "$NS" -o 'jsonpath={.spec.resources.memory}' 2>&1) == 1073741824 ]]; then
  pass "integer quantity kept as integer"; else fail "integer quantity kept as integer"; fi

# ---- invalid corpus: every file must be rejected by the server with its expected message --------
for f in "$HERE"/invalid/*.yaml; do
  name=$(basename "$f" .yaml)
  expect=$(sed -n 's/^# expect: //p;T;q' "$f")
  if [[ -z $expect ]]; then fail "invalid/$name has an '# expect:' line"; continue; fi
  api=$API
  [[ $(sed -n 's/^kind: //p' "$f") != PetNameTrainingSweep ]] || api=$SWEEP_API
  # 1) kubectl apply --validate=strict (server-side strict field validation)
  if out=$(k apply --validate=strict -n "$NS" -f "$f" 2>&1); then
    fail "invalid/$name rejected by kubectl apply --validate=strict" "accepted: $out"
    k delete -n "$NS" -f "$f" --ignore-not-found >/dev/null 2>&1 || true
  elif grep -qF -- "$expect" <<<"$out"; then
    pass "invalid/$name rejected by kubectl apply --validate=strict"
  else
    fail "invalid/$name rejected by kubectl apply --validate=strict" "expected '$expect' in: $out"
  fi
  # 2) raw POST to the API server with ?fieldValidation=Strict (no kubectl client-side logic)
  if ! k create --dry-run=client -n "$NS" -o json -f "$f" >"$TMP/$name.json" 2>"$TMP/$name.err"; then
    fail "invalid/$name rejected by POST ?fieldValidation=Strict" "$(cat "$TMP/$name.err")"
  elif out=$(k create --raw "$api?fieldValidation=Strict" -f "$TMP/$name.json" 2>&1); then
    fail "invalid/$name rejected by POST ?fieldValidation=Strict" "accepted: $out"
    k delete -n "$NS" -f "$f" --ignore-not-found >/dev/null 2>&1 || true
  elif grep -qF -- "$expect" <<<"$out"; then
    pass "invalid/$name rejected by POST ?fieldValidation=Strict"
  else
    fail "invalid/$name rejected by POST ?fieldValidation=Strict" "expected '$expect' in: $out"
  fi
done

# ---- unknown fields: pruned when the client does not ask for strict validation -----------------
sed -e 's/^  name: .*/  name: pruned/' -e 's/^spec:/spec:\n  notAField: 1/' "$EXAMPLE" >"$TMP/pruned.yaml"
if out=$(k apply --validate=warn -n "$NS" -f "$TMP/pruned.yaml" 2>&1) && grep -q 'unknown field "spec.notAField"' <<<"$out"; then
  pass "unknown field with --validate=warn: accepted with a warning"
else fail "unknown field with --validate=warn: accepted with a warning" "$out"; fi
if [[ $(k get pntj pruned -n "$NS" -o 'jsonpath={.spec}' 2>&1) != *notAField* ]] &&
  [[ $(k get pntj pruned -n "$NS" -o 'jsonpath={.spec.image}' 2>&1) == localhost/petname-trainer:dev ]]; then pass "unknown field pruned from storage"; else
  fail "unknown field pruned from storage"; fi

# ---- status subresource and printer columns ----------------------------------------------------
status='{"status":{"phase":"Running","active":2,"ready":2,"ranks":4,"restarts":1,"progress":{"epoch":3,"epochs":10,"trainLoss":1.61},
  "reason":"Unschedulable","message":"cpu-job-rank-1: 0/1 nodes are available","modelPath":"/checkpoints/cpu-job/model.safetensors",
  "model":{"claimName":"ckpt","subPath":"cpu-job/model.safetensors"},
  "conditions":[{"type":"Running","status":"True","reason":"AllRanksRunning","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}'
check "patch status through the status subresource" \
  k patch pntj cpu-job -n "$NS" --subresource=status --type=merge -p "$status"
got=$(k get pntj cpu-job -n "$NS" --no-headers 2>&1 || true)
if [[ $(awk '{print $2,$3,$4,$5,$6,$7,$8}' <<<"$got") == "Running 2 2 3 1.61 1 Unschedulable" ]]; then
  pass "printer columns Phase Replicas Ready Epoch Loss Restarts Reason"; else fail "printer columns" "$got"; fi
out=$(k get pntj -n "$NS" 2>&1 || true)
header=$(head -n 1 <<<"$out" | tr -s ' ')
if [[ $header == "NAME PHASE REPLICAS READY EPOCH LOSS RESTARTS REASON ADMITTED AGE" ]]; then pass "printer column headers"; else
  fail "printer column headers" "$header"; fi
out=$(k get pntj cpu-job -n "$NS" -o wide 2>&1 || true)
if [[ $(head -n 1 <<<"$out" | tr -s ' ') == "NAME PHASE REPLICAS READY EPOCH LOSS RESTARTS REASON ADMITTED AGE QUEUE RANKS MODEL" ]] &&
  [[ $(tail -n 1 <<<"$out" | awk '{print $(NF-1), $NF}') == "4 /checkpoints/cpu-job/model.safetensors" ]]; then
  pass "printer columns Ranks and Model with -o wide"; else
  fail "printer columns Ranks and Model with -o wide" "$out"; fi
gen=$(k get pntj cpu-job -n "$NS" -o 'jsonpath={.metadata.generation}')
k patch pntj cpu-job -n "$NS" --type=merge -p '{"status":{"phase":"Failed"}}' >/dev/null 2>&1 || true
if [[ $(k get pntj cpu-job -n "$NS" -o 'jsonpath={.status.phase}') == Running ]]; then
  pass "status is ignored on the main resource"; else fail "status is ignored on the main resource"; fi
k patch pntj cpu-job -n "$NS" --subresource=status --type=merge -p '{"spec":{"replicas":5}}' >/dev/null 2>&1 || true
if [[ $(k get pntj cpu-job -n "$NS" -o 'jsonpath={.spec.replicas}/{.metadata.generation}') == "2/$gen" ]]; then
  pass "spec is ignored on the status subresource"; else fail "spec is ignored on the status subresource"; fi
if out=$(k patch pntj cpu-job -n "$NS" --subresource=status --type=merge -p '{"status":{"phase":"Exploded"}}' 2>&1); then
  fail "invalid status.phase rejected" "accepted: $out"
elif grep -qF 'phase: Unsupported value: "Exploded"' <<<"$out"; then pass "invalid status.phase rejected"; else
  fail "invalid status.phase rejected" "$out"; fi
if out=$(k patch pntj cpu-job -n "$NS" --type=merge -p '{"spec":{"training":{"learningRate":0}}}' 2>&1); then
  fail "invalid update rejected" "accepted: $out"
elif grep -qF 'learningRate in body should be greater than 0' <<<"$out"; then pass "invalid update rejected"; else
  fail "invalid update rejected" "$out"; fi

# ---- names: short name, categories -------------------------------------------------------------
# has_cpu_job ARGS...: `kubectl ARGS -o name` lists petnametrainingjob.petname.dev/cpu-job among its lines
has_cpu_job() {
  local out
  out=$(k "$@" -n "$NS" -o name 2>&1) || return 1
  grep -qx 'petnametrainingjob.petname.dev/cpu-job' <<<"$out"
}
check "short name pntj" has_cpu_job get pntj
check "category petname" has_cpu_job get petname
check "category all" has_cpu_job get all
checks_done
