#!/usr/bin/env bash
# Creating a job yields exactly N pods + 1 Service with the right env, labels, owner references
# and volumes; a job of several processes per pod gets `--nproc`, the node variables, a metrics
# port per local rank and threads from its CPU limit; status.ranks is the world size. Each job
# has its own checkpoint directory on the claim (no subPath: the job's name) and its ranks read
# the rendezvous secret from the job's Secret, created with the pods and owned by the job.
source "$(dirname "$0")/lib.sh"

start_operator
create_job rex 4 '  checkpoint: {claimName: rex-checkpoints, path: /ck}
  dataset: {path: /pets/seattle.csv, volume: {hostPath: /srv/pets, mountPath: /pets}}
  training: {epochs: 3, batchSizePerReplica: 256, learningRate: 0.002}
  metrics: {port: 9500}'
wait_until "4 pods of rex" 30 has_pods rex 4
wait_until "service rex" 30 k get service rex
# Proof that it saw its 4 pods (status.active), then idle: a settled operator adds nothing more.
active_is() { [[ $(job_field "$1" '{.status.active}') == "$2" ]]; }
processed "rex's status.active 4" 30 active_is rex 4
[[ $(pod_count rex) == 4 ]] || fail "expected exactly 4 pods"
[[ $(k get services -o json | jq '[.items[] | select(.metadata.labels["petname.dev/job-name"] == "rex")] | length') == 1 ]] ||
  fail "expected exactly 1 service"

uid=$(job_field rex '{.metadata.uid}')
pods=$(job_pods rex)
for rank in 0 1 2 3; do
  pod=$(jq --arg n "rex-rank-$rank" '.items[] | select(.metadata.name == $n)' <<<"$pods")
  [[ -n $pod ]] || fail "pod rex-rank-$rank missing"
  env_of() { jq -r --arg e "$1" '.spec.containers[0].env[] | select(.name == $e) | .value' <<<"$pod"; }
  check() { [[ $2 == "$3" ]] || fail "rex-rank-$rank: $1 is '$2', want '$3'"; }
  check MASTER_ADDR "$(env_of MASTER_ADDR)" "rex-rank-0.rex.$NS.svc"
  check MASTER_PORT "$(env_of MASTER_PORT)" 29500
  check WORLD_SIZE "$(env_of WORLD_SIZE)" 4
  check RANK "$(env_of RANK)" "$rank"
  check LOCAL_RANK "$(env_of LOCAL_RANK)" 0
  check PET_RANK "$(env_of PET_RANK)" "$rank"
  check PET_NNODES "$(env_of PET_NNODES)" 4
  check PET_NPROC_PER_NODE "$(env_of PET_NPROC_PER_NODE)" 1
  check PET_NODE_RANK "$(env_of PET_NODE_RANK)" "$rank"
  check PET_MASTER_ADDR "$(env_of PET_MASTER_ADDR)" "rex-rank-0.rex.$NS.svc"
  check PETNAME_JOB_NAME "$(env_of PETNAME_JOB_NAME)" rex
  check PETNAME_NAMESPACE "$(env_of PETNAME_NAMESPACE)" "$NS"
  check PETNAME_JOB_UID "$(env_of PETNAME_JOB_UID)" "$uid"
  check rendezvous-secret "$(jq -c '.spec.containers[0].env[] | select(.name == "PETNAME_RENDEZVOUS_SECRET") | .valueFrom' <<<"$pod")" \
    '{"secretKeyRef":{"key":"secret","name":"rex-rendezvous"}}'
  check label-name "$(jq -r '.metadata.labels["app.kubernetes.io/name"]' <<<"$pod")" petname
  check label-job "$(jq -r '.metadata.labels["petname.dev/job-name"]' <<<"$pod")" rex
  check label-rank "$(jq -r '.metadata.labels["petname.dev/rank"]' <<<"$pod")" "$rank"
  check owner "$(jq -r '.metadata.ownerReferences[] | select(.controller) | "\(.kind)/\(.uid)"' <<<"$pod")" \
    "PetNameTrainingJob/$uid"
  check hostname "$(jq -r .spec.hostname <<<"$pod")" "rex-rank-$rank"
  check subdomain "$(jq -r .spec.subdomain <<<"$pod")" rex
  check restartPolicy "$(jq -r .spec.restartPolicy <<<"$pod")" Never
  check checkpoint-claim "$(jq -r '.spec.volumes[] | select(.name == "checkpoints") | .persistentVolumeClaim.claimName' <<<"$pod")" rex-checkpoints
  check dataset-hostPath "$(jq -r '.spec.volumes[] | select(.name == "dataset") | .hostPath.path' <<<"$pod")" /srv/pets
  check mounts "$(jq -r '[.spec.containers[0].volumeMounts[] | select(.name | startswith("kube-api-access") | not) | "\(.name)=\(.mountPath)"] | join(",")' <<<"$pod")" \
    "checkpoints=/ck,dataset=/pets,shm=/dev/shm"
  check shm-volume "$(jq -c '.spec.volumes[] | select(.name == "shm") | .emptyDir' <<<"$pod")" \
    '{"medium":"Memory","sizeLimit":"1Gi"}'
  check metrics-port "$(jq -r '.spec.containers[0].ports[] | select(.name == "metrics") | .containerPort' <<<"$pod")" 9500
  args=$(jq -r '.spec.containers[0].args | join(" ")' <<<"$pod")
  for want in "--data /pets/seattle.csv" "--epochs 3" "--batch-size 256" "--lr 0.002" "--checkpoint-dir /ck/rex" "--metrics-port 9500"; do
    [[ " $args " == *" $want "* ]] || fail "rex-rank-$rank args '$args' lack '$want'"
  done
done

svc=$(k get service rex -o json)
[[ $(jq -r .spec.clusterIP <<<"$svc") == None ]] || fail "service is not headless"
[[ $(jq -r .spec.publishNotReadyAddresses <<<"$svc") == true ]] || fail "publishNotReadyAddresses unset"
[[ $(jq -r '.metadata.ownerReferences[0].uid' <<<"$svc") == "$uid" ]] || fail "service owner"
[[ $(jq -r '.spec.selector["petname.dev/job-name"]' <<<"$svc") == rex ]] || fail "service selector"
secret=$(k get secret rex-rendezvous -o json)
[[ $(jq -r '.metadata.ownerReferences[0].uid' <<<"$secret") == "$uid" ]] || fail "secret owner"
[[ $(jq -r '.data.secret | @base64d | length' <<<"$secret") == 64 ]] || fail "secret value"

# A GPU job: nvidia.com/gpu limits, --device cuda and one process per GPU.
create_job gpu 1 '  resources: {gpusPerReplica: 2}'
wait_until "pod of gpu" 30 has_pods gpu 1
pod=$(k get pod gpu-rank-0 -o json)
[[ $(jq -r '.spec.containers[0].resources.limits["nvidia.com/gpu"]' <<<"$pod") == 2 ]] || fail "gpu limit"
[[ $(jq -r '.spec.containers[0].args | join(" ")' <<<"$pod") == "train --nproc 2 "*" --device cuda" ]] ||
  fail "--nproc 2 ... --device cuda"
wait_until "status Pending" 20 phase_is rex Pending
wait_until "status.ranks of rex" 20 test "$(job_field rex '{.status.ranks}')" = 4

# Two processes per pod on 3 CPUs: ranks 2i and 2i+1 in pod i, at most one thread each (the
# operator's count, which the trainer may lower: no --threads).
create_job procs 2 '  resources: {processesPerReplica: 2, cpu: "3"}'
wait_until "2 pods of procs" 30 has_pods procs 2
for i in 0 1; do
  pod=$(k get pod "procs-rank-$i" -o json)
  got=$(jq -r '[.spec.containers[0].env[] | select(.name | test("RANK|WORLD_SIZE|^PET_N|OMP_")) |
    "\(.name)=\(.value)"] | join(" ")' <<<"$pod")
  want="WORLD_SIZE=4 PET_WORLD_SIZE=4 PET_NNODES=2 PET_NPROC_PER_NODE=2 PET_NODE_RANK=$i OMP_NUM_THREADS=1"
  [[ $got == "$want" ]] || fail "procs-rank-$i env '$got', want '$want' (no RANK, no LOCAL_RANK)"
  args=$(jq -r '.spec.containers[0].args | join(" ")' <<<"$pod")
  [[ $args == "train --nproc 2 "* && $args != *--threads* ]] || fail "procs-rank-$i args '$args'"
  adaptive=$(jq -r '.spec.containers[0].env[] | select(.name == "PETNAME_ADAPTIVE_THREADS") | .value' <<<"$pod")
  [[ $adaptive == 1 ]] || fail "procs-rank-$i PETNAME_ADAPTIVE_THREADS '$adaptive', want 1"
  ports=$(jq -r '[.spec.containers[0].ports[] | "\(.name)=\(.containerPort)"] | join(" ")' <<<"$pod")
  [[ $ports == "metrics=9400 metrics-1=9401 rendezvous=29500" ]] || fail "procs-rank-$i ports '$ports'"
done
wait_until "status.ranks of procs" 20 test "$(job_field procs '{.status.ranks}')" = 4
stop_operator
log PASS
