#!/usr/bin/env bash
# The restricted Pod Security Standard on a real API server: in a namespace that enforces it, a
# job's rank pods are admitted as the operator renders them (the trainer container's
# securityContext: no privilege escalation, capabilities dropped, non-root, RuntimeDefault
# seccomp, read-only root filesystem); a job whose template adds a sidecar that breaks the
# standard gets no pods, and the API server's refusal is reported on the job as a Warning event
# FailedCreate naming PodSecurity (which also shows the admission check is in force here).
source "$(dirname "$0")/lib.sh"

"$KUBECTL" --kubeconfig "$KUBECONFIG" label namespace "$NS" \
  pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest \
  >/dev/null
start_operator

create_job safe 2
wait_until "2 pods of safe" 30 has_pods safe 2
for rank in 0 1; do
  sc=$(k get pod "safe-rank-$rank" -o json | jq -c '.spec.containers[] | select(.name == "trainer") | .securityContext')
  want='{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"readOnlyRootFilesystem":true,"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}}'
  [[ $(jq -cS . <<<"$sc") == "$(jq -cS . <<<"$want")" ]] ||
    fail "safe-rank-$rank: trainer securityContext is $sc, want $want"
done
log "ok - the rank pods are admitted under enforce=restricted"

create_job loose 1 '  template:
    spec:
      containers:
        - {name: shell, image: "petname:test", command: [sleep, infinity]}'
refused() { k get events --field-selector involvedObject.name=loose -o json |
  jq -e '.items[] | select(.reason == "FailedCreate" and .type == "Warning" and (.message | test("PodSecurity")))'; }
wait_until "a FailedCreate event naming PodSecurity on loose" 30 refused
has_pods loose 0 || fail "loose has pods although its sidecar breaks the restricted standard"
log "ok - a sidecar that breaks the standard is refused by the API server and reported on the job"
