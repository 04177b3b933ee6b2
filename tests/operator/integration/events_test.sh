#!/usr/bin/env bash
# Repeated failures make one Event, counted (docs/contributing/faults.md). A job whose sidecar breaks the
# namespace's restricted Pod Security standard has every pod create refused (403) by the real API
# server, on every retry; each refusal is recorded as a Warning FailedCreate on the job. Like
# client-go's EventCorrelator, the operator patches the first Event's count instead of creating a
# new Event per refusal: once several refusals happened there is exactly one FailedCreate Event
# on the job, and its count equals the number of refused pod creates (the operator's own
# rest_client_requests_total{code="403",method="POST"}).
source "$(dirname "$0")/lib.sh"

"$KUBECTL" --kubeconfig "$KUBECONFIG" label namespace "$NS" \
  pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest \
  >/dev/null
start_operator
create_job loose 1 '  template:
    spec:
      containers:
        - {name: shell, image: "petname:test", command: [sleep, infinity]}'

refusals() {
  curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" |
    awk '$1 ~ /^rest_client_requests_total\{/ && $1 ~ /code="403"/ && $1 ~ /method="POST"/ {n += $2}
         END {print n + 0}'
}
failed_events() {
  k get events --field-selector involvedObject.name=loose,reason=FailedCreate -o json |
    jq -c '[.items[] | {count, type}]'
}
# counted N: one Warning FailedCreate Event whose count is the refusals so far, at least N.
counted() {
  local events refused
  events=$(failed_events)
  refused=$(refusals)
  ((refused >= $1)) && [[ $events == "[{\"count\":$refused,\"type\":\"Warning\"}]" ]]
}
wait_until "one FailedCreate event counting 5 or more refusals" 90 counted 5
log "ok - $(refusals) refused pod creates, events: $(failed_events)"
message=$(k get events --field-selector involvedObject.name=loose,reason=FailedCreate -o json |
  jq -r '.items[0].message')
[[ $message == *PodSecurity* ]] || fail "the event's message does not name PodSecurity: $message"
stop_operator
log PASS
