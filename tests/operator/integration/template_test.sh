#!/usr/bin/env bash
# spec.template on a real API server: a job whose template adds a sidecar, a service account, a
# security context, a volume, an init container, labels and annotations gets rank pods with all
# of them plus every field the operator owns; a template that sets an operator-owned field is
# refused by the CRD (CEL) with a clear message, or, for what CEL does not check (a sidecar on
# the trainer's metrics port), failed by the operator (condition Failed, reason InvalidSpec) with
# no pods; rank pods mount a ServiceAccount token only when the template asks; a pod the API
# server refuses (a sidecar without image) is reported as a Warning event FailedCreate on the job.
source "$(dirname "$0")/lib.sh"

start_operator
k create serviceaccount trainer >/dev/null
create_job tmpl 2 '  labels: {team: pets}
  template:
    metadata:
      labels: {cost-center: ml}
      annotations: {example.com/note: hello}
    spec:
      serviceAccountName: trainer
      automountServiceAccountToken: false
      securityContext: {runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532}
      volumes:
        - {name: scratch, emptyDir: {sizeLimit: 64Mi}}
      initContainers:
        - {name: prepare, image: "petname:test", command: ["true"]}
      containers:
        - name: uploader
          image: "petname:test"
          command: [sleep, infinity]
          ports: [{name: http, containerPort: 8000}]
          volumeMounts:
            - {name: checkpoints, mountPath: /checkpoints, readOnly: true}
            - {name: scratch, mountPath: /scratch}'
wait_until "2 pods of tmpl" 30 has_pods tmpl 2
for rank in 0 1; do
  pod=$(k get pod "tmpl-rank-$rank" -o json)
  check() { [[ $2 == "$3" ]] || fail "tmpl-rank-$rank: $1 is '$2', want '$3'"; }
  q() { jq -r "$1" <<<"$pod"; }
  # The template's fields ...
  check containers "$(q '[.spec.containers[].name] | join(",")')" trainer,uploader
  check initContainers "$(q '[.spec.initContainers[].name] | join(",")')" prepare
  check serviceAccountName "$(q .spec.serviceAccountName)" trainer
  check automountServiceAccountToken "$(q .spec.automountServiceAccountToken)" false
  check securityContext "$(q '.spec.securityContext | "\(.runAsNonRoot) \(.runAsUser) \(.fsGroup)"')" "true 65532 65532"
  check volumes "$(q '[.spec.volumes[].name] | join(",")')" checkpoints,shm,scratch
  check scratch "$(q '.spec.volumes[] | select(.name == "scratch") | .emptyDir.sizeLimit')" 64Mi
  check sidecar-mounts "$(q '[.spec.containers[1].volumeMounts[] | "\(.name)=\(.mountPath)"] | join(",")')" \
    "checkpoints=/checkpoints,scratch=/scratch"
  check sidecar-port "$(q '.spec.containers[1].ports[0].containerPort')" 8000
  check label-template "$(q '.metadata.labels["cost-center"]')" ml
  check label-flat "$(q '.metadata.labels.team')" pets
  check annotation "$(q '.metadata.annotations["example.com/note"]')" hello
  # ... and the operator's, unchanged.
  check label-job "$(q '.metadata.labels["petname.dev/job-name"]')" tmpl
  check label-rank "$(q '.metadata.labels["petname.dev/rank"]')" "$rank"
  check restartPolicy "$(q .spec.restartPolicy)" Never
  check hostname "$(q .spec.hostname)" "tmpl-rank-$rank"
  check subdomain "$(q .spec.subdomain)" tmpl
  check trainer-image "$(q .spec.containers[0].image)" petname:test
  check trainer-command "$(q '.spec.containers[0].command | join(" ")')" petname
  check RANK "$(q '.spec.containers[0].env[] | select(.name == "RANK") | .value')" "$rank"
  check MASTER_ADDR "$(q '.spec.containers[0].env[] | select(.name == "MASTER_ADDR") | .value')" \
    "tmpl-rank-0.tmpl.$NS.svc"
  check trainer-ports "$(q '[.spec.containers[0].ports[] | "\(.name)=\(.containerPort)"] | join(",")')" \
    metrics=9400,rendezvous=29500
  check trainer-mounts "$(q '[.spec.containers[0].volumeMounts[] | .name] | join(",")')" checkpoints,shm
  check owner "$(q '.metadata.ownerReferences[0].kind')" PetNameTrainingJob
done
wait_until "tmpl Pending" 20 phase_is tmpl Pending

# Refused by the CRD (CEL), with the reason: nothing is stored.
refused() { # NAME EXPECTED TEMPLATE_YAML
  local out
  if out=$(create_job "$1" 1 "$3" 2>&1); then fail "$1 was accepted"; fi
  [[ $out == *"$2"* ]] || fail "$1: message lacks '$2': $out"
  log "$1 refused: ${out##*: }"
}
refused named-trainer "container trainer may only add env, envFrom and volumeMounts" '  template:
    spec:
      containers: [{name: trainer, image: "other:1"}]'
refused restart-policy "template.spec.restartPolicy is the operator" '  template:
    spec: {restartPolicy: Always}'
refused rank-label "must not set app.kubernetes.io/name, scheduling.x-k8s.io/pod-group or keys under petname.dev/" '  template:
    metadata:
      labels: {petname.dev/rank: "3"}'
refused trainer-env "container trainer must not set env RANK" '  template:
    spec:
      containers: [{name: trainer, env: [{name: WORLD_SIZE, value: "1"}]}]'
refused trainer-shm "container trainer must not mount at /dev/shm" '  template:
    spec:
      containers: [{name: trainer, volumeMounts: [{name: x, mountPath: /dev/shm}]}]'
refused ckpt-volume "must not use the names checkpoints, dataset or shm" '  template:
    spec:
      volumes: [{name: checkpoints, emptyDir: {}}]'
[[ $(k get pntj -o name | wc -l) == 1 ]] || fail "a refused job was stored"

# Without a template the rank pods mount no ServiceAccount token (the trainer never calls the
# API server); a template that sets automountServiceAccountToken gets one.
tokens() { k get pod "$1" -o json | jq '[.spec.volumes[] | select(.projected.sources[]?.serviceAccountToken)] | length'; }
create_job plain 1
create_job optin 1 '  template:
    spec: {serviceAccountName: trainer, automountServiceAccountToken: true}'
wait_until "1 pod of plain" 30 has_pods plain 1
wait_until "1 pod of optin" 30 has_pods optin 1
[[ $(k get pod plain-rank-0 -o jsonpath='{.spec.automountServiceAccountToken}') == false ]] ||
  fail "plain-rank-0: automountServiceAccountToken is not false"
[[ $(tokens plain-rank-0) == 0 ]] || fail "plain-rank-0 mounts a ServiceAccount token"
[[ $(tokens optin-rank-0) == 1 ]] || fail "optin-rank-0 has no ServiceAccount token"

# Refused by the operator: a sidecar on the trainer's metrics port (9400).
create_job porty 1 '  template:
    spec:
      containers: [{name: exporter, image: "petname:test", ports: [{containerPort: 9400}]}]'
wait_until "porty Failed" 20 phase_is porty Failed
cond_reason_is porty Failed InvalidSpec || fail "porty: Failed reason $(cond porty Failed reason)"
msg=$(cond porty Failed message)
[[ $msg == *'spec.template.spec.containers["exporter"]: containerPort 9400 is a port of the trainer'* ]] ||
  fail "porty: message '$msg'"
processed "InvalidSpec event on porty" 20 has_event porty InvalidSpec
[[ $(pod_count porty) == 0 ]] || fail "porty has pods"

# Refused by the operator: a template trainer variable that spec.env also sets (the CRD checks
# only the operator's fixed names).
create_job envtwice 1 '  env: [{name: NCCL_DEBUG, value: INFO}]
  template:
    spec:
      containers: [{name: trainer, env: [{name: NCCL_DEBUG, value: WARN}]}]'
wait_until "envtwice Failed" 20 phase_is envtwice Failed
msg=$(cond envtwice Failed message)
[[ $msg == *'spec.template.spec.containers["trainer"].env: "NCCL_DEBUG" is set by the operator'* ]] ||
  fail "envtwice: message '$msg'"
[[ $(pod_count envtwice) == 0 ]] || fail "envtwice has pods"

# Refused by the API server when the pods are created: a Warning event on the job says why.
create_job noimage 1 '  template:
    spec:
      containers: [{name: side}]'
wait_until "FailedCreate event on noimage" 30 has_event noimage FailedCreate
ev=$(k get events --field-selector involvedObject.name=noimage,reason=FailedCreate -o jsonpath='{.items[0].message}')
[[ $ev == *"create Pod noimage-rank-0: HTTP 422"*"image"*"Required value"* ]] || fail "FailedCreate message '$ev'"
log PASS
