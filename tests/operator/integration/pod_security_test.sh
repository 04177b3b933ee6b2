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

# GPU pods as NCCL needs them: 2 processes per pod on a made-up accelerator, a memory-backed
# /dev/shm, and the template's trainer entry (envFrom a ConfigMap, env valueFrom, a ConfigMap
# volume mounted into the trainer). emptyDir and configMap volumes are allowed under restricted.
create_job gpu 2 '  resources: {gpusPerReplica: 2, acceleratorResource: example.com/gpu, sharedMemory: 3Gi}
  template:
    spec:
      volumes: [{name: nccl, configMap: {name: nccl-settings}}]
      containers:
        - name: trainer
          envFrom: [{configMapRef: {name: nccl-settings}}]
          env: [{name: NODE_NAME, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
          volumeMounts: [{name: nccl, mountPath: /etc/nccl}]'
wait_until "2 pods of gpu" 30 has_pods gpu 2
trainer=$(k get pod gpu-rank-1 -o json | jq -c '.spec.containers[] | select(.name == "trainer")')
jq -e '.resources.limits == {"example.com/gpu": "2"}' <<<"$trainer" >/dev/null ||
  fail "gpu-rank-1: trainer limits are $(jq -c .resources <<<"$trainer"), want example.com/gpu: 2"
[[ $(jq -c '[.volumeMounts[].mountPath]' <<<"$trainer") == '["/checkpoints","/dev/shm","/etc/nccl"]' ]] ||
  fail "gpu-rank-1: trainer mounts $(jq -c '[.volumeMounts[].mountPath]' <<<"$trainer")"
jq -e '.envFrom == [{"configMapRef": {"name": "nccl-settings"}}] and
  (.env | map(.name) | index("NODE_NAME") != null) and (.env | map(.name) | index("WORLD_SIZE") != null)' \
  <<<"$trainer" >/dev/null || fail "gpu-rank-1: trainer env/envFrom lack the template's: $trainer"
k get pod gpu-rank-1 -o json | jq -e '.spec.volumes[] | select(.name == "shm")
  | .emptyDir == {"medium": "Memory", "sizeLimit": "3Gi"}' >/dev/null ||
  fail "gpu-rank-1 has no memory-backed shm volume of 3Gi"
log "ok - pods with /dev/shm, example.com/gpu and the template's trainer env, envFrom and mount are admitted under enforce=restricted"

create_job loose 1 '  template:
    spec:
      containers:
        - {name: shell, image: "petname:test", command: [sleep, infinity]}'
refused() { k get events --field-selector involvedObject.name=loose -o json |
  jq -e '.items[] | select(.reason == "FailedCreate" and .type == "Warning" and (.message | test("PodSecurity")))'; }
wait_until "a FailedCreate event naming PodSecurity on loose" 30 refused
has_pods loose 0 || fail "loose has pods although its sidecar breaks the restricted standard"
log "ok - a sidecar that breaks the standard is refused by the API server and reported on the job"
