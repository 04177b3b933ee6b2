# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its k, kn, ROOT, NS, WORK, EPOCHS, job_on_claim, phase_is,
# save_logs, step, check, ok, not_ok, log): scenario 9, jobs sharing one checkpoint claim. Two
# jobs on the claim petname-checkpoints without checkpoint.subPath train at the same time; both
# Succeed, each with every epoch's checkpoint in its own directory of the claim (the job's name),
# owned by it. A third job pointed at the first one's directory (subPath) is refused before it
# trains, with one line naming both jobs, and the first job's checkpoints stay as they were (its
# logs/ then also holds the refused job's own rank logs, which say why it stopped).
# The claims are the ones `kubectl apply -k deploy/local-cluster` creates on a one-node cluster
# (docs/getting-started/local-cluster.md): petname-data and petname-checkpoints, ReadWriteOnce,
# rendered by `kubectl kustomize` and bound to hostPath volumes that offer ReadWriteOnce only, as a
# local-path provisioner's do. The jobs read their data from petname-data; both ranks of a job
# mount both claims at once (world size 2 in its checkpoints).

# local_cluster_storage: deploy/local-cluster's two claims in NS, each bound to a hostPath
# PersistentVolume (ReadWriteOnce only, directory owned by the ranks' uid); petname-data holds
# the jobs' table pets.csv, petname-checkpoints is WORK/ckpt/shared
local_cluster_storage() {
  local claim dir
  for claim in petname-data petname-checkpoints; do
    dir=$WORK/ckpt/shared
    [[ $claim == petname-data ]] && dir=$WORK/local-data
    hostpath_volume "$NS-$claim" "$dir" "$NS" "$claim" "[ReadWriteOnce]" 5Gi Retain
  done
  cp "$WORK/data/pets.csv" "$WORK/local-data/pets.csv"
  k kustomize "$ROOT/deploy/local-cluster" | python3 -c '
import sys, yaml
claims = [d for d in yaml.safe_load_all(sys.stdin) if d and d["kind"] == "PersistentVolumeClaim"]
sys.stdout.write(yaml.safe_dump_all(claims))' | kn apply -f - >/dev/null
}
# local_claims_bound: both claims Bound, each asking ReadWriteOnce and given ReadWriteOnce only
local_claims_bound() {
  [[ $(kn get pvc petname-data petname-checkpoints \
    -o jsonpath='{range .items[*]}{.status.phase}/{.spec.accessModes}/{.status.accessModes} {end}') == \
    "$(printf 'Bound/["ReadWriteOnce"]/["ReadWriteOnce"] %.0s' 1 2)" ]]
}

scenario_9() {
  local a=share-a b=share-b c=share-c t0=$SECONDS
  checks_plan 16
  local root=$WORK/ckpt/shared last
  last=epoch-$(printf '%06d' "$EPOCHS")
  log "scenario 9: two jobs on one claim without subPath, a third pointed at the first's directory"
  local_cluster_storage
  step "deploy/local-cluster's claims petname-data and petname-checkpoints Bound, ReadWriteOnce" \
    60 local_claims_bound || return 0
  job_on_claim "$a" petname-checkpoints "" "" petname-data
  job_on_claim "$b" petname-checkpoints "" "" petname-data
  both_succeeded() { phase_is "$a" Succeeded && phase_is "$b" Succeeded; }
  step "both jobs on the shared claim Succeeded" 420 both_succeeded || {
    save_logs "$a"
    save_logs "$b"
    return 0
  }
  SCENARIO_SECONDS[9-shared-claim]=$((SECONDS - t0))
  save_logs "$a"
  save_logs "$b"
  check "the claim holds one directory per job (its name)" \
    test "$(find "$root" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | paste -sd' ')" = "$a $b"
  local job
  for job in "$a" "$b"; do
    check "$job: rank 0 read the table from the ReadWriteOnce claim petname-data" \
      grep -q "petname: data: .* usable names" "$WORK/logs/$job-rank-0.log"
    check "$job: world size 2 (both ranks on the ReadWriteOnce claims at once)" \
      grep -q '"world_size": *2' "$root/$job/$last/manifest.json"
    check "$job: final checkpoint in $job/ on the claim" test -f "$root/$job/$last/manifest.json"
    check "$job: its checkpoints record it as their owner" \
      grep -q "\"id\": \"job $NS/$job\"" "$root/$job/$last/manifest.json"
    check "$job: trained from scratch (no other job's checkpoint resumed)" \
      grep -q "no checkpoint in /checkpoints/$job; starting from scratch" "$WORK/logs/$job-rank-0.log"
  done

  local before
  before=$(cd "$root/$a" && find . -path ./logs -prune -o -type f -exec sha256sum {} + | sort)
  job_on_claim "$c" petname-checkpoints "$a" "" petname-data
  step "$c, pointed at $a's directory, Failed" 300 phase_is "$c" Failed || {
    save_logs "$c"
    return 0
  }
  save_logs "$c"
  # Every rank checks the owner; the first to fail ends the job, and the
  # operator then deletes the ranks still running, so any one log may be gone.
  check "$c's ranks named both jobs" grep -q \
    "petname: error: the checkpoints in /checkpoints/$a belong to job $NS/$a (uid [^)]*), not to job $NS/$c" \
    "$WORK/logs/$c"-rank-*.log
  check "$a's checkpoints are as they were" \
    test "$(cd "$root/$a" && find . -path ./logs -prune -o -type f -exec sha256sum {} + | sort)" = "$before"
}
