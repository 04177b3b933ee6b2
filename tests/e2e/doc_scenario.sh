# shellcheck shell=bash
# Scenario 11 of tests/e2e/e2e_test.sh (sourced; uses its helpers): the cluster commands of the
# quick start (docs/getting-started/cluster.md) and the task pages, run verbatim in the order of their
# `<!-- doc-test N -->` markers (tests/e2e/doc_blocks.py), as a user runs them: kubectl and helm
# on the PATH, the cluster's kubeconfig, the default namespace, the working directory a copy of
# the repository's charts/, crds/, examples/ and scripts/. What a real cluster
# provides and our node does not is made first, outside the documented commands: the images under
# the documented names (a registry's job) and two hostPath PersistentVolumes bound to the
# documented claims (a storage provisioner's job). The documented `helm install` replaces the
# release scenario 1 installed. Blocks 10-89 run, the results are checked, then the documented
# uninstall (90-99) runs and is checked. The Kueue example (65-66, docs/tasks/kueue.md) needs Kueue next
# to the API server: scenario 12 leaves it running, else kueue-up.sh starts it first. In between,
# examples/gpu-job.yaml is applied for real: the
# operator must accept it and report its pods Unschedulable (the node has no GPU).

# doc_volume CLAIM: a hostPath PersistentVolume bound in advance to the claim CLAIM of the
# default namespace (hostpath_volume)
doc_volume() {
  hostpath_volume "doc-$1" "$WORK/doc-volumes/$1" default "$1" "[ReadWriteMany, ReadWriteOnce]" \
    5Gi Delete
}

# doc_run FROM TO: runs the documented blocks FROM..TO in WORK/quickstart/repo (log: quickstart.log)
doc_run() {
  local script=$WORK/quickstart/blocks-$1-$2.sh
  python3 "$ROOT/tests/e2e/doc_blocks.py" --from "$1" --to "$2" "$ROOT/README.md" \
    $(cd "$ROOT" && find docs -name '*.md' | sort | sed "s|^|$ROOT/|") >"$script" || return 1
  (cd "$WORK/quickstart/repo" && PATH="$PETNAME_BIN:$PATH" KUBECONFIG="$CLUSTER/kubeconfig" \
    bash -x "$script") >>"$WORK/quickstart.log" 2>&1
}

scenario_11() {
  local t0=$SECONDS
  checks_plan 12
  log "scenario 11: the quick start's and the task pages' cluster commands, verbatim"
  "$HELM" --kubeconfig "$CLUSTER/kubeconfig" uninstall petname -n "$OP_NS" --wait >>"$CHECKS_LOG" 2>&1 || true
  local image
  for image in "$OPERATOR_IMAGE" "$TRAINER_IMAGE"; do
    "${CTR[@]}" images tag --force "$image" "${image%:*}:dev" >>"$CHECKS_LOG" 2>&1 ||
      { stop "tag $image as ${image%:*}:dev in the node's containerd"; return 0; }
  done
  if ! kueue_running; then  # scenario 12 leaves it running; the Kueue example needs it
    "$ROOT/tests/cluster/kueue-up.sh" "$CLUSTER" >>"$CHECKS_LOG" 2>&1 ||
      { stop "Kueue started for the Kueue example of docs/tasks/kueue.md (kueue-up.sh)"; return 0; }
  fi
  doc_volume petname-data
  doc_volume petname-checkpoints
  mkdir -p "$WORK/quickstart/repo"
  cp -a "$ROOT/charts" "$ROOT/crds" "$ROOT/examples" "$ROOT/scripts" "$WORK/quickstart/repo/"
  chmod -R a+rX "$WORK/quickstart"

  if doc_run 10 89; then
    ok "the documented install, data, jobs, names and model copy ran (doc-test blocks 10-89)"
  else
    stop "the documented install, data, jobs, names and model copy ran (doc-test blocks 10-89; $(grep -o '\[doc-test [0-9]*\] [^ ]*' "$WORK/quickstart.log" | tail -n 1) failed; log $WORK/quickstart.log)"
    save_doc_logs
    return 0
  fi
  SCENARIO_SECONDS[11-quick-start]=$((SECONDS - t0))
  save_doc_logs
  check "cpu-job read the gzip-compressed table from the ConfigMap" \
    grep -q "petname: data: .* usable names" "$WORK/logs/cpu-job-rank-0.log"
  check "kueue-job ran in Kueue's queue team-a (its Workload was listed)" \
    grep -q "^petnametrainingjob-kueue-job-" "$WORK/quickstart.log"
  check "template-job read the table from the claim filled with kubectl cp" \
    grep -q "petname: data: .* usable names" "$WORK/logs/template-job-rank-0.log"
  check "status.modelPath names the model beside the checkpoints" \
    grep -qx "/checkpoints/cpu-job/model.safetensors" "$WORK/quickstart.log"
  check "petname generate in the shell pod printed 10 names" \
    test "$(sed -n '/petname generate --checkpoint/,/kubectl cp/p' "$WORK/quickstart.log" | grep -cE '^[A-Za-z][A-Za-z .-]*$')" -ge 10
  check "the model was copied off the cluster (safetensors header)" python3 - "$WORK/quickstart/repo/model.safetensors" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
assert "lstm.weight_ih_l0" in header and "fc.weight" in header, sorted(header)
PY
  gpu_job_blocked() { # the operator took gpu-job (no refusal) and says why its pods wait
    [[ $(k -n default get pntj gpu-job -o jsonpath='{.status.conditions[?(@.type=="PodsReady")].reason}') == Unschedulable ]]
  }
  check "gpu-job, applied for real: the operator creates its pods and reports them Unschedulable (no GPU here)" \
    eval 'k -n default apply -f "$WORK/quickstart/repo/examples/gpu-job.yaml" && eventually 120 gpu_job_blocked'
  k -n default delete -f "$WORK/quickstart/repo/examples/gpu-job.yaml" --wait=false >>"$CHECKS_LOG" 2>&1 || true
  # gang-job.yaml as written, with the PodGroup API that coscheduling installs (its CRD only):
  # its PriorityClass admits the 4 rank pods and the PodGroup holds them. Placing them needs the
  # coscheduling scheduler and 4 GPUs, which the node does not have.
  gang_job_waits() {
    [[ $(k -n default get pods -l petname.dev/job-name=gang-job \
      -o jsonpath='{range .items[*]}{.spec.priority}/{.spec.schedulerName}/{.status.phase} {end}') == \
      "$(printf '1000/scheduler-plugins-scheduler/Pending %.0s' 1 2 3 4)" ]] &&
      [[ $(k -n default get podgroups.scheduling.x-k8s.io gang-job -o jsonpath='{.spec.minMember}') == 4 ]]
  }
  k apply -f "$ROOT/tests/operator/integration/podgroup_crd.yaml" >>"$CHECKS_LOG" 2>&1 &&
    k wait --for=condition=Established --timeout=60s crd/podgroups.scheduling.x-k8s.io >>"$CHECKS_LOG" 2>&1
  check "gang-job, applied for real: its PriorityClass admits 4 pending rank pods held by a PodGroup of 4" \
    eval 'k -n default apply -f "$WORK/quickstart/repo/examples/gang-job.yaml" && eventually 120 gang_job_waits'
  k -n default delete -f "$WORK/quickstart/repo/examples/gang-job.yaml" --wait=false >>"$CHECKS_LOG" 2>&1 || true
  k delete -f "$ROOT/tests/operator/integration/podgroup_crd.yaml" --wait=false >>"$CHECKS_LOG" 2>&1 || true
  check "the documented claims hold the data and the model" \
    test -f "$WORK/doc-volumes/petname-data/seattle_pet_licenses.csv" -a \
    -f "$WORK/doc-volumes/petname-checkpoints/cpu-job/model.safetensors"

  if doc_run 90 99; then ok "the documented uninstall ran (doc-test blocks 90-99)"; else
    stop "the documented uninstall ran (doc-test blocks 90-99; log $WORK/quickstart.log)"
    return 0
  fi
  no_doc_objects() {
    [[ -z $(k -n default get pods,pvc -o name 2>/dev/null) ]] &&
      ! k -n default get configmap pet-licenses >/dev/null 2>&1 &&
      [[ -z $(k -n "$OP_NS" get pods -o name 2>/dev/null) ]] &&
      ! k get crd petnametrainingjobs.petname.dev >/dev/null 2>&1
  }
  check "nothing of the quick start is left (pods, claims, ConfigMap, operator, CRDs)" eventually 120 no_doc_objects
}

save_doc_logs() {
  local job
  mkdir -p "$WORK/logs"
  for job in cpu-job template-job; do
    k -n default logs "$job-rank-0" >"$WORK/logs/$job-rank-0.log" 2>&1 || true
  done
}
