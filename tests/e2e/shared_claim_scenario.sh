# shellcheck shell=bash
# Sourced by e2e_test.sh (uses its kn, WORK, EPOCHS, storage, job_on_claim, phase_is, save_logs,
# step, check, ok, not_ok, log): scenario 9, jobs sharing one checkpoint claim (issue #28). Two
# jobs on the claim `shared-ckpt` without checkpoint.subPath train at the same time; both Succeed,
# each with every epoch's checkpoint in its own directory of the claim (the job's name), owned by
# it. A third job pointed at the first one's directory (subPath) is refused before it trains, with
# one line naming both jobs, and the first job's checkpoints stay as they were (its logs/ then
# also holds the refused job's own rank logs, which say why it stopped).

scenario_9() {
  local a=share-a b=share-b c=share-c t0=$SECONDS
  checks_plan 11
  local root=$WORK/ckpt/shared last
  last=epoch-$(printf '%06d' "$EPOCHS")
  log "scenario 9: two jobs on one claim without subPath, a third pointed at the first's directory"
  storage shared
  job_on_claim "$a" shared-ckpt ""
  job_on_claim "$b" shared-ckpt ""
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
    check "$job: final checkpoint in $job/ on the claim" test -f "$root/$job/$last/manifest.json"
    check "$job: its checkpoints record it as their owner" \
      grep -q "\"id\": \"job $NS/$job\"" "$root/$job/$last/manifest.json"
    check "$job: trained from scratch (no other job's checkpoint resumed)" \
      grep -q "no checkpoint in /checkpoints/$job; starting from scratch" "$WORK/logs/$job-rank-0.log"
  done

  local before
  before=$(cd "$root/$a" && find . -path ./logs -prune -o -type f -exec sha256sum {} + | sort)
  job_on_claim "$c" shared-ckpt "$a"
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
