# shellcheck shell=bash
# Scenario 12's steps on jobs that are edited or whose Workload is (sourced by kueue_scenario.sh,
# whose helpers and objects they use): a running job resized, and a Workload deleted by hand. A
# job is held (its rank containers paused, e2e_test.sh's hold) from before it is edited until the
# kubelet's SIGTERM is pending in its ranks, so that the edit lands while it trains, however fast
# the machine is.

# kq_workload_deleted JOB NEXT: JOB (running) has its Workload deleted by hand while NEXT waits for
# the quota JOB holds: while a pod JOB had then still holds node resources (neither Succeeded nor
# Failed, and not Terminating past its grace period: the operator's condition for removing Kueue's
# finalizer, pod_quota.h) the Workload stays (Terminating) and NEXT is not admitted. The ranks stop within about a second, so
# few looks see such a pod; the operator_kueue test holds one for long. (JOB then gets a new
# Workload; it or NEXT is admitted next.)
kq_workload_deleted() {
  local job=$1 next=$2 wl pods left early=0 vanished=0 looks=0 held=0 admitted missing
  local deadline=$((SECONDS + 120))
  step "$job's rank held while it trains" 60 hold "$job" 1 || return 0
  wl=$(kq_workload_of "$job" .metadata.name)
  pods=$(kn get pods -l "petname.dev/job-name=$job" -o jsonpath='{.items[*].metadata.uid}')
  old_pods() {  # "held" while one of the pods of $pods holds resources, "left" while one is there
    kn get pods -l "petname.dev/job-name=$job" -o json |
      jq -r --arg old "$pods" --argjson now "$(date +%s)" '($old | split(" ")) as $o
        | [.items[] | select(.metadata.uid as $u | $o | index($u))]
        | if length == 0 then empty
          elif any(.[]; .status.phase != "Succeeded" and .status.phase != "Failed" and
            ((.metadata.deletionTimestamp // "") == "" or (.metadata.deletionTimestamp | fromdateiso8601) > $now))
          then "held" else "left" end'
  }
  stopped_event() {
    [[ -n $(kn get events --field-selector "involvedObject.name=$job,reason=WorkloadDeleted" -o name) ]]
  }
  kn delete workload "$wl" --wait=false >/dev/null
  release "$job"
  # From the deletion on (the ranks take seconds to stop): NEXT's admission and the Workload
  # read first, so that both were seen while an old pod still held resources.
  while :; do
    admitted=0 missing=0
    kq_admitted "$next" && admitted=1
    kn get workload "$wl" >/dev/null 2>&1 || missing=1
    left=$(old_pods)
    [[ -n $left ]] || break
    looks=$((looks + 1))
    if [[ $left == held ]]; then
      held=$((held + 1))
      ((admitted)) && early=1
      ((missing)) && vanished=1
    fi
    if ((SECONDS >= deadline)); then
      kn get pods,workloads -o wide >>"$CHECKS_LOG" 2>&1
      stop "$job's pods gone"
      return 0
    fi
    sleep 0.2
  done
  check "$job's Workload deleted by hand: $job stops (event WorkloadDeleted)" eventually 30 stopped_event
  check "$job's pods of the deleted Workload's admission are gone, after $looks looks that found one left ($held of them one holding resources)" \
    test "$looks" -gt 0
  check "$next was not admitted while one of them held resources" test "$early" = 0
  check "$job's deleted Workload stayed (Terminating) while one of them held resources" test "$vanished" = 0
}

kq_workload_uid() { kn get workloads -l "petname.dev/job-name=$1" -o jsonpath='{.items[0].metadata.uid}'; }
# kq_resize JOB: JOB (2 ranks, running) edited to 1 replica after its first checkpoint: Kueue's
# quota was reserved for 2, so its Workload is replaced; it is admitted again and resumes on 1 rank
kq_resize() {
  local job=$1 old
  step "$job's first checkpoint written, its ranks held" 240 held_at "$job" 1 || return 0
  old=$(kq_workload_uid "$job")
  kn patch pntj "$job" --type merge -p '{"spec":{"replicas":1}}' >/dev/null
  step "$job's held ranks got the kubelet's SIGTERM (the edit stops them)" 120 term_pending "$job" ||
    { release "$job"; return 0; }
  release "$job"
  replaced() {
    local uid
    uid=$(kq_workload_uid "$1")
    [[ -n $uid && $uid != "$old" ]] &&
      [[ $(kn get workloads -l "petname.dev/job-name=$1" -o jsonpath='{.items[0].spec.podSets[0].count}') == 1 ]]
  }
  step "$job edited to 1 replica: its Workload replaced by one of 1 pod" 120 replaced "$job" || return 0
  one_rank() { phase_is "$1" Running && (($(kq_pods "$1") == 1)) && [[ $(job_field "$1" '{.status.ranks}') == 1 ]]; }
  step "$job admitted again and running on 1 rank" 180 one_rank "$job" || return 0
  resumed_on_one() { kn logs "$1-rank-0" 2>/dev/null | grep -q 'resuming from'; }
  check "$job's rank 0 resumed from its checkpoint on the new world size" eventually 120 resumed_on_one "$job"
  check "$job's resize is not a restart (status.restarts 0)" test "$(job_field "$job" '{.status.restarts}')" = 0
}

kq_workload_of() { kn get workloads -l "petname.dev/job-name=$1" -o json | jq -r ".items[0]$2 // empty"; }
