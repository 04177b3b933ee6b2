#!/usr/bin/env bash
# API server throttling by the real API Priority and Fairness (docs/contributing/faults.md). The operator
# runs as a user of its own whose writes a FlowSchema sends to a priority level with zero nominal
# seats that rejects (limitResponse Reject); seat_hog.py keeps one request of that priority level
# executing, so the real kube-apiserver answers the operator's writes with 429 and Retry-After
# while its reads and watches pass. A job is created meanwhile. Asserts that the operator's writes
# stay under the bound of its backoff policy (no hot loop), that its metrics count the 429s and
# retries (and the server rejected at least as many), and that once the seat is free the job
# converges (service, both rank pods, Pending then Running) without duplicates.
source "$(dirname "$0")/lib.sh"

APF_DIR="$LOG_DIR/apf"
rm -rf "$APF_DIR"
mkdir -p "$APF_DIR"
PKI="$PETNAME_CLUSTER_DIR/pki"
USER_NAME="petname-throttled-$NS"
openssl genrsa -out "$APF_DIR/user.key" 2048 2>/dev/null
openssl req -new -key "$APF_DIR/user.key" -subj "/CN=$USER_NAME" -out "$APF_DIR/user.csr"
printf 'extendedKeyUsage=clientAuth\n' >"$APF_DIR/user.ext"
openssl x509 -req -in "$APF_DIR/user.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
  -CAserial "$APF_DIR/ca.srl" -days 1 -extfile "$APF_DIR/user.ext" -out "$APF_DIR/user.crt" 2>/dev/null
OP_KUBECONFIG="$APF_DIR/kubeconfig"
sed -e "s#client-certificate-data: .*#client-certificate-data: $(base64 -w0 <"$APF_DIR/user.crt")#" \
  -e "s#client-key-data: .*#client-key-data: $(base64 -w0 <"$APF_DIR/user.key")#" \
  "$KUBECONFIG" >"$OP_KUBECONFIG"

kc() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
AT_EXIT+=("kc delete clusterrolebinding,flowschema,prioritylevelconfiguration $NS --wait=false")
kc create clusterrolebinding "$NS" --clusterrole=cluster-admin --user="$USER_NAME" >/dev/null
kc apply -f - >/dev/null <<YAML
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: $NS}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 0
    lendablePercent: 0
    borrowingLimitPercent: 0
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: $NS}
spec:
  priorityLevelConfiguration: {name: $NS}
  matchingPrecedence: 50
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: $USER_NAME}}]
    resourceRules:
    - {verbs: [create, update, patch, delete], apiGroups: ["*"], resources: ["*"],
       namespaces: ["*"], clusterScope: true}
YAML

python3 "$(dirname "$0")/seat_hog.py" "$PETNAME_APISERVER_URL" "$PETNAME_CA_FILE" \
  "$APF_DIR/user.crt" "$APF_DIR/user.key" "$NS" 2>>"$LOG_DIR/seat_hog.log" &
HOG_PID=$!
AT_EXIT+=("kill $HOG_PID")
user_write() {
  curl -sS -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$PETNAME_CA_FILE" \
    --cert "$APF_DIR/user.crt" --key "$APF_DIR/user.key" -X POST -H 'Content-Type: application/json' \
    -d '{"metadata":{"name":"probe"}}' "$PETNAME_APISERVER_URL/api/v1/namespaces/$NS/configmaps?dryRun=All"
}
rejecting() { [[ $(user_write) == 429 ]]; }
wait_until "API Priority and Fairness rejecting the user's writes" 30 rejecting

API_HOST=${PETNAME_APISERVER_URL#https://}
# writes: the operator's write attempts so far, by its rest_client_requests_total.
writes() {
  curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" |
    awk '/^rest_client_requests_total\{/ && !/method="GET"/ {s += $2} END {print s + 0}'
}
retries_429() { metric_value "rest_client_request_retries_total{code=\"429\",host=\"$API_HOST\",verb=\"PUT\"}"; }
retried() { (($(retries_429) >= $1)); }
CTL='controller="petnametrainingjob"'
errors_at_least() { (($(metric_value "controller_runtime_reconcile_errors_total{$CTL}") >= $1)); }
server_rejected() {
  curl -fsS --cacert "$PETNAME_CA_FILE" --cert "$PETNAME_ADMIN_CERT" --key "$PETNAME_ADMIN_KEY" \
    "$PETNAME_APISERVER_URL/metrics" |
    awk -v fs="flow_schema=\"$NS\"" 'index($0, "apiserver_flowcontrol_rejected_requests_total{") == 1 &&
      index($0, fs) {s += $NF} END {print s + 0}'
}

start_operator
start_writes=$(writes)
start_s=$SECONDS
create_job thr 2
wait_until "status writes retried after 429" 60 retried 3
wait_until "a reconcile failing once its retries ran out" 60 errors_at_least 1
window=$((SECONDS - start_s + 1))
writes_in_window=$(($(writes) - start_writes))
got_429=$(metric_value "rest_client_requests_total{code=\"429\",host=\"$API_HOST\",method=\"PUT\"}")
rejected=$(server_rejected)
bound=$(write_bound "$window")
log "${window} s throttled: $writes_in_window writes, $got_429 PUTs answered 429," \
  "$(retries_429) retried; the server rejected $rejected; bound $bound"
((writes_in_window <= bound)) || fail "hot loop: $writes_in_window writes in ${window} s, bound $bound"
((got_429 >= 3 && rejected >= got_429)) || fail "the operator's 429s are not the server's rejections"

kill "$HOG_PID"
wait_until "the seat free" 90 test "$(user_write)" = 201
wait_until "2 pods" 60 has_pods thr 2
wait_until "service thr" 30 k get service thr
wait_until "thr Pending" 30 phase_is thr Pending
run_all thr 2
processed "thr Running" 30 phase_is thr Running
[[ $(pod_count thr) == 2 ]] || fail "expected exactly 2 pods"
stop_operator
log PASS
