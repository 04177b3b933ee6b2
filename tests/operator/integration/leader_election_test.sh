#!/usr/bin/env bash
# Leader election with two real operator processes on one Lease: only the leader reconciles
# (the standby is ready but has run no reconcile), kill -9 of the leader hands the Lease to the
# standby (holderIdentity changes) within the lease duration, the new leader converges without
# duplicating pods, a clean SIGTERM releases the Lease, and a leader that loses its Lease exits.
source "$(dirname "$0")/lib.sh"

LEASE=petname-operator-test
elect_flags=(--leader-elect --leader-elect-namespace "$NS" --leader-elect-id "$LEASE"
  --leader-elect-lease-duration 4s --leader-elect-renew-deadline 3s
  --leader-elect-retry-period 1s)
declare -A PID PORT HPORT
start_replica() {
  PORT[$1]=$(free_port)
  HPORT[$1]=$(free_port)
  "$PETNAME_OPERATOR" --kubeconfig "$KUBECONFIG" --namespace "$NS" --log-level debug \
    --metrics-bind-address "127.0.0.1:${PORT[$1]}" \
    --health-probe-bind-address "127.0.0.1:${HPORT[$1]}" "${elect_flags[@]}" \
    >>"$LOG_DIR/operator-$1.log" 2>&1 &
  PID[$1]=$!
}
replica_metric() {
  curl -fsS "http://127.0.0.1:${PORT[$1]}/metrics" | awk -v m="$2" '$1 == m {print $2}'
}
is_leader() { [[ $(replica_metric "$1" petname_operator_is_leader) == 1 ]]; }
holder() { k get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
holder_set() { [[ -n $(holder) ]]; }
stop_replicas() {
  local rc=$? p
  for p in "${PID[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if ((rc != 0)); then tail -n 20 "$LOG_DIR"/operator-*.log >&2 || true; fi
  return "$rc"
}
trap 'stop_replicas; cleanup' EXIT

# Bad settings: one line on stderr naming the problem, exit 2.
bad_flags() {
  local rc=0 err
  err=$("$PETNAME_OPERATOR" --kubeconfig "$KUBECONFIG" "$@" 2>&1) || rc=$?
  ((rc == 2)) || fail "$* exited $rc"
  [[ $(wc -l <<<"$err") == 1 ]] || fail "$*: more than one line: $err"
  echo "$err"
}
[[ $(bad_flags --leader-elect --leader-elect-namespace "$NS" --leader-elect-lease-duration 5s) == \
  *"greater than --leader-elect-renew-deadline"* ]] || fail "lease <= renew deadline accepted"
[[ $(bad_flags --leader-elect --leader-elect-namespace "$NS" --leader-elect-retry-period 2x) == \
  *"2x"* ]] || fail "bad duration accepted"
[[ $(bad_flags --log-format xml) == *"log-format"* ]] || fail "bad log format accepted"

start_replica a
wait_until "replica a leads" 30 is_leader a
start_replica b
wait_until "replica b serves /metrics" 20 replica_metric b petname_operator_is_leader
first=$(holder)
[[ -n $first ]] || fail "no Lease holder"
log "leader: $first"

create_job lj 3
wait_until "3 pods" 30 has_pods lj 3
# Proof that both replicas processed the job: the leader is idle, and the standby's cache holds
# the job with the status the leader wrote (petname_operator_jobs counts its cache).
wait_until "the leader idle" 30 idle "${PORT[a]}"
standby_has_lj() { [[ $(replica_metric b 'petname_operator_jobs{phase="Pending"}') == 1 ]]; }
wait_until "the standby's cache holds lj, Pending as the leader wrote it" 30 standby_has_lj
is_leader b && fail "two leaders"
[[ $(replica_metric b petname_operator_reconcile_total) == 0 ]] || fail "the standby reconciled"
(($(replica_metric a petname_operator_reconcile_total) > 0)) || fail "the leader did not reconcile"
[[ $(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:${HPORT[b]}/readyz") == 200 ]] ||
  fail "a synced standby must be ready"

kill -9 "${PID[a]}"
wait "${PID[a]}" 2>/dev/null || true
new_holder() { h=$(holder) && [[ -n $h && $h != "$first" ]]; }
# Generous upper bound: lease duration 4 s plus retry jitter.
wait_until "Lease taken over by b" 30 new_holder
wait_until "b leads" 10 is_leader b
transitions=$(k get lease "$LEASE" -o jsonpath='{.spec.leaseTransitions}')
((transitions >= 1)) || fail "leaseTransitions $transitions"

# The new leader converges: a deleted pod comes back once, nothing is duplicated.
old_uid=$(k get pod lj-rank-1 -o jsonpath='{.metadata.uid}')
k delete pod lj-rank-1 --wait=false >/dev/null
recreated() { u=$(k get pod lj-rank-1 -o jsonpath='{.metadata.uid}') && [[ $u != "$old_uid" ]]; }
wait_until "pod recreated by the new leader" 30 recreated
wait_until "the new leader idle" 30 idle "${PORT[b]}"
[[ $(pod_count lj) == 3 ]] || fail "pods duplicated after takeover"
(($(replica_metric b petname_operator_reconcile_total) > 0)) || fail "the new leader idles"

kill -TERM "${PID[b]}"
rc=0
wait "${PID[b]}" || rc=$?
((rc == 0)) || fail "leader exited $rc after SIGTERM"
[[ -z $(holder) ]] || fail "the Lease was not released on a clean stop"

# A leader whose Lease is taken (here by an intruder writing a long lease) cannot renew; past
# the renew deadline it exits 1 instead of reconciling on.
start_replica c
wait_until "replica c leads" 30 is_leader c
k patch lease "$LEASE" --type=merge \
  -p '{"spec":{"holderIdentity":"intruder","leaseDurationSeconds":3600}}' >/dev/null
exited() { ! kill -0 "${PID[c]}" 2>/dev/null; }
wait_until "replica c exits after losing the Lease" 30 exited
rc=0
wait "${PID[c]}" || rc=$?
((rc == 1)) || fail "a leader that lost its Lease exited $rc, not 1"
grep -q "leader election lost" "$LOG_DIR/operator-c.log" || fail "no 'leader election lost' line"
log PASS
