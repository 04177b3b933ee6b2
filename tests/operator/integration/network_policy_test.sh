#!/usr/bin/env bash
# Each job gets a NetworkPolicy (--network-policy, on by default): the API server accepts it as
# rendered, the job controls it, it selects the job's rank pods, admits the job's own pods on
# every port and the --network-policy-metrics-from peers on the metrics ports only, lets a job
# that runs only the trainer connect out to its own pods and DNS only (a job that downloads its
# data gets no egress rule), and it is garbage-collected with the job. With --no-network-policy
# there is none. (No network plugin runs here: this checks the objects, not their enforcement.)
source "$(dirname "$0")/lib.sh"

peers='[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}},"podSelector":{"matchLabels":{"app.kubernetes.io/name":"prometheus"}}}]'
start_operator --network-policy-metrics-from "$peers"
create_job rex 2 '  resources: {processesPerReplica: 2}'
wait_until "2 pods" 30 has_pods rex 2
wait_until "NetworkPolicy rex" 30 k get networkpolicy rex
np=$(k get networkpolicy rex -o json)
uid=$(job_field rex '{.metadata.uid}')
owner=$(jq -c '.metadata.ownerReferences[0] | {kind, name, uid, controller}' <<<"$np")
[[ $owner == "{\"kind\":\"PetNameTrainingJob\",\"name\":\"rex\",\"uid\":\"$uid\",\"controller\":true}" ]] ||
  fail "NetworkPolicy owner $owner"
own='{"matchLabels":{"app.kubernetes.io/name":"petname","petname.dev/job-name":"rex"}}'
[[ $(jq -c '.spec.podSelector' <<<"$np") == "$own" ]] || fail "podSelector $(jq -c .spec.podSelector <<<"$np")"
[[ $(jq -c '.spec.policyTypes' <<<"$np") == '["Ingress","Egress"]' ]] || fail "policyTypes $(jq -c .spec.policyTypes <<<"$np")"
[[ $(jq -c '.spec.egress' <<<"$np") == "[{\"to\":[{\"podSelector\":$own}]},{\"ports\":[{\"port\":53,\"protocol\":\"UDP\"},{\"port\":53,\"protocol\":\"TCP\"}]}]" ]] ||
  fail "egress $(jq -c .spec.egress <<<"$np")"
[[ $(jq -c '.spec.ingress[0]' <<<"$np") == "{\"from\":[{\"podSelector\":$own}]}" ]] ||
  fail "ingress from the job's pods: $(jq -c '.spec.ingress[0]' <<<"$np")"
[[ $(jq -c '.spec.ingress[1].from' <<<"$np") == "$peers" ]] || fail "metrics peers $(jq -c '.spec.ingress[1].from' <<<"$np")"
[[ $(jq -c '.spec.ingress[1].ports' <<<"$np") == '[{"endPort":9401,"port":9400,"protocol":"TCP"}]' ]] ||
  fail "metrics ports $(jq -c '.spec.ingress[1].ports' <<<"$np")"
selected=$(k get pods -l app.kubernetes.io/name=petname,petname.dev/job-name=rex -o name | sort | tr '\n' ' ')
[[ $selected == "pod/rex-rank-0 pod/rex-rank-1 " ]] || fail "the policy's selector matches '$selected'"
log "NetworkPolicy rex: accepted, controlled by the job, selects its 2 pods, out only to them and DNS"

k create -f - >/dev/null <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: fetch}
spec:
  image: petname:test
  dataset: {url: "https://data.example.org/pets.csv", sha256: "$(printf '%064d' 0)"}
YAML
wait_until "NetworkPolicy fetch" 30 k get networkpolicy fetch
[[ $(k get networkpolicy fetch -o jsonpath='{.spec.policyTypes}') == '["Ingress"]' ]] ||
  fail "a job that downloads its data got egress rules: $(k get networkpolicy fetch -o jsonpath='{.spec}')"
log "NetworkPolicy fetch: a job that downloads its data keeps its egress open"

k delete pntj rex fetch --wait=false >/dev/null
no_policy() { [[ $(k get networkpolicies -o json | jq '.items | length') == 0 ]]; }
wait_until "NetworkPolicies garbage-collected with their jobs" 60 no_policy
log "NetworkPolicies rex and fetch: gone with their jobs"

stop_operator
start_operator --no-network-policy
create_job plain 1
wait_until "1 pod" 30 has_pods plain 1
wait_until "service" 30 k get service plain
[[ $(k get networkpolicies -o json | jq '.items | length') == 0 ]] || fail "a NetworkPolicy with --no-network-policy"
log "--no-network-policy: no NetworkPolicy"
stop_operator
log PASS
