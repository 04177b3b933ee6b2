#!/usr/bin/env bash
# The corpus of invalid PetNameTrainingJobs and PetNameTrainingSweeps, tests/crds/invalid/*.yaml (the CRD test reads it too):
# the API server must reject each one, with a message containing the file's "# expect:" text.
# Nothing may be created.
source "$(dirname "$0")/lib.sh"

n=0
for cr in "$(dirname "$0")"/../../crds/invalid/*.yaml; do
  want=$(sed -n 's/^# expect: //p' "$cr")
  [[ -n $want ]] || fail "$cr has no '# expect:' line"
  if out=$(k create --validate=strict -f "$cr" 2>&1); then
    fail "$(basename "$cr") was accepted: $out"
  fi
  [[ $out == *"$want"* ]] || fail "$(basename "$cr"): message lacks '$want': $out"
  log "rejected $(basename "$cr"): ${out##*: }"
  n=$((n + 1))
done
((n >= 30)) || fail "only $n invalid CRs in the corpus"
[[ $(k get pntj -o json | jq '.items | length') == 0 ]] || fail "an invalid job was stored"
[[ $(k get pnts -o json | jq '.items | length') == 0 ]] || fail "an invalid sweep was stored"
log "PASS ($n invalid CRs rejected)"
