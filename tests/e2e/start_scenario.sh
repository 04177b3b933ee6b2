# shellcheck shell=bash
# Scenario 10 of tests/e2e/e2e_test.sh (sourced; uses its helpers): data from a URL, and jobs
# whose pods cannot start, on the real node.
#   - url-ok: dataset.url on an HTTP server on the node's address (python3 -m http.server, the
#     gzip-compressed subset), dataset.sha256 right: the fetch-data init containers download and
#     check it, the job Succeeds;
#   - url-bad: the same with a wrong sha256: Failed, reason DataFetchFailed, message naming the
#     checksum;
#   - bad-image: an image name no registry has: condition PodsReady=False with ErrImagePull or
#     ImagePullBackOff and status.reason showing it (the REASON column of `kubectl get pntj`),
#     then Failed with that reason after runPolicy.startErrorTimeoutSeconds;
#   - too-big: a CPU request no node can hold: PodsReady=False, reason Unschedulable, and still
#     Pending (not Failed) after bad-image has failed with the same timeout;
#   - every one of them has no checkpoint claim: condition CheckpointsPersistent=False (EmptyDir)
#     and one Warning event CheckpointsNotPersistent.

# start_job JOB DATASET_LINES [SPEC_LINES]: a 2-rank job without a checkpoint claim, start errors
# failing it after 20 s
start_job() {
  setup "$1 accepted by the API server" kn apply -f - <<YAML
apiVersion: petname.dev/v1alpha1
kind: PetNameTrainingJob
metadata: {name: $1}
spec:
  replicas: 2
  image: ${IMAGE:-$TRAINER_IMAGE}
  imagePullPolicy: ${PULL:-Never}
  dataset:
$2
  training: {epochs: 2, batchSizePerReplica: $BATCH, threads: 1}
  runPolicy: {backoffLimit: 0, startErrorTimeoutSeconds: 20}
${3:-}
YAML
}
condition_field() { # JOB TYPE FIELD: .status.conditions[type=TYPE].FIELD
  job_field "$1" "{.status.conditions[?(@.type==\"$2\")].$3}"
}
start_blocked() { # JOB REASON_REGEX: PodsReady False with a reason matching REASON_REGEX
  [[ $(condition_field "$1" PodsReady status) == False ]] &&
    [[ $(condition_field "$1" PodsReady reason) =~ ^($2)$ ]]
}

scenario_10() {
  local t0=$SECONDS
  checks_plan 14
  log "scenario 10: data from a URL, a wrong checksum, a wrong image, an impossible request"
  local web=$WORK/web port sha
  mkdir -p "$web"
  gzip -9 -c "$WORK/data/pets.csv" >"$web/pets.csv.gz"
  sha=$(sha256sum "$web/pets.csv.gz" | cut -d' ' -f1)
  port=$(free_port)
  python3 -m http.server "$port" --bind "$PETNAME_NODE_ADDRESS" --directory "$web" \
    >"$WORK/http.log" 2>&1 &
  PIDS+=($!)
  local url=http://$PETNAME_NODE_ADDRESS:$port/pets.csv.gz
  start_job url-ok "    url: $url
    sha256: \"$sha\"
    maxNames: $MAX_NAMES"
  start_job url-bad "    url: $url
    sha256: \"$(printf '0%.0s' {1..64})\""
  IMAGE=localhost/petname-no-such-image:dev PULL=IfNotPresent start_job bad-image \
    "    path: /data/pets.csv
    volume: {hostPath: \"$WORK/data\"}"
  start_job too-big "    path: /data/pets.csv
    volume: {hostPath: \"$WORK/data\"}" "  resources: {cpu: 64}"

  check "bad-image: PodsReady=False naming ErrImagePull or ImagePullBackOff" \
    eventually 120 start_blocked bad-image 'ErrImagePull|ImagePullBackOff'
  check "bad-image: status.reason (column REASON) shows it" eventually 30 \
    bash -c "[[ \$1 =~ ^(ErrImagePull|ImagePullBackOff)$ ]]" _ "$(job_field bad-image '{.status.reason}')"
  check "too-big: PodsReady=False, reason Unschedulable" eventually 120 start_blocked too-big Unschedulable
  check "bad-image: Failed after startErrorTimeoutSeconds" eventually 180 phase_is bad-image Failed
  check "bad-image: the Failed condition names the image error" \
    bash -c "[[ \$1 =~ ^(ErrImagePull|ImagePullBackOff)$ ]]" _ "$(condition_field bad-image Failed reason)"
  check "too-big: still Pending (Unschedulable only reports)" phase_is too-big Pending
  check "url-bad: Failed" eventually 180 phase_is url-bad Failed
  check "url-bad: reason DataFetchFailed" test "$(condition_field url-bad Failed reason)" = DataFetchFailed
  check "url-bad: the message names the checksum" \
    bash -c "grep -qi sha256 <<<\"\$1\"" _ "$(condition_field url-bad Failed message)"
  step "url-ok: Succeeded on the data its init containers fetched" 300 phase_is url-ok Succeeded || {
    save_logs url-ok
    return 0
  }
  SCENARIO_SECONDS[10-start]=$((SECONDS - t0))
  save_logs url-ok
  check "url-ok: rank 0 trained on the fetched file" \
    grep -q "petname: data: .* usable names" "$WORK/logs/url-ok-rank-0.log"
  check "url-ok: both pods fetched it (2 GETs in the server's log)" \
    test "$(grep -c 'GET /pets.csv.gz' "$WORK/http.log")" -ge 2
  check "url-ok: CheckpointsPersistent=False, reason EmptyDir" \
    test "$(condition_field url-ok CheckpointsPersistent reason)" = EmptyDir
  one_warning() {
    [[ $(kn get events --field-selector "involvedObject.name=url-ok,reason=CheckpointsNotPersistent,type=Warning" \
      -o name | wc -l) == 1 ]]
  }
  check "url-ok: one Warning event CheckpointsNotPersistent" eventually 30 one_warning
  kn delete pntj url-ok url-bad bad-image too-big --wait=false >/dev/null 2>&1 || true
}
