#!/usr/bin/env bash
# Starts a real Kubernetes control plane on loopback: etcd + kube-apiserver + kube-controller-manager
# (no scheduler, no kubelet: like envtest, tests move pods through phases by patching pod status).
#
#   tests/cluster/up.sh DIR
#
# DIR is created if needed; a DIR whose processes are still running is refused. Stop with down.sh DIR.
# Env (all optional):
#   PETNAME_ETCD_PORT, PETNAME_ETCD_PEER_PORT, PETNAME_APISERVER_PORT, PETNAME_KCM_PORT
#       loopback ports; each one left unset is picked at random among free ports in 20000-59999
#       (start is retried with fresh random ports if one was taken meanwhile).
#   PETNAME_APISERVER_ADDRESS IPv4 address kube-apiserver binds to and advertises (default 127.0.0.1;
#       node-up.sh passes its bridge's address so that pods reach it). Other than loopback, it is
#       added to the serving cert and the apiserver publishes it in Endpoints default/kubernetes.
#   PETNAME_CLUSTER_TIMEOUT   seconds to wait for readiness (default 120)
#   PETNAME_CLUSTER_OWNER_PID if set, a watchdog runs down.sh DIR as soon as that process is gone
#       (so a test harness killed with SIGKILL, e.g. on a ctest timeout, does not leak daemons)
#   PETNAME_CACHE, K8S_VERSION  where the binaries are (see env.sh; build.sh is run if they are missing)
# Outputs in DIR:
#   kubeconfig            admin (O=system:masters) kubeconfig, certs embedded, server https://ADDRESS:PORT
#   cluster.env           sourceable: KUBECONFIG, PETNAME_APISERVER_URL, PETNAME_CLUSTER_{APISERVER,ETCD,
#                         ETCD_PEER,KCM}_PORT (not the input names: sourcing it must not pin the next
#                         cluster's ports), PETNAME_CLUSTER_DIR,
#                         PETNAME_CA_FILE, PETNAME_ADMIN_CERT, PETNAME_ADMIN_KEY, KUBECTL
#   pki/                  ca.crt, admin.crt/key, ... (see certs.sh)
#   *.pid, *.log          etcd, kube-apiserver, kube-controller-manager
# On success prints the kubeconfig path on stdout (everything else goes to stderr).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$HERE/env.sh"
# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$HERE/../support/ports.sh"

DIR=${1:?usage: up.sh DIR}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
TIMEOUT=${PETNAME_CLUSTER_TIMEOUT:-120}
ADDRESS=${PETNAME_APISERVER_ADDRESS:-127.0.0.1}
COMPONENTS=(etcd kube-apiserver kube-controller-manager)

log() { printf '[cluster/up] %s\n' "$*" >&2; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$HERE/lib.sh"

for c in "${COMPONENTS[@]}"; do
  if [[ -f "$DIR/$c.pid" ]] && kill -0 "$(cat "$DIR/$c.pid")" 2>/dev/null; then
    log "ERROR: $c from $DIR is still running (pid $(cat "$DIR/$c.pid")); run down.sh $DIR first"
    exit 1
  fi
done

if [[ ! -x $PETNAME_K8S_BIN/kube-apiserver || ! -x $PETNAME_K8S_BIN/kube-controller-manager || ! -x $KUBECTL ]] ||
  ! command -v etcd >/dev/null 2>&1; then
  log "binaries missing; running build.sh (a cold build takes 20-30 min)"
  "$HERE/build.sh" >&2
fi
ETCD=$(command -v etcd)

# ---- ports -----------------------------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
declare -A TAKEN=()
pick_port() {
  local p
  while :; do
    p=$(free_port)
    [[ -z ${TAKEN[$p]:-} ]] && break
  done
  TAKEN[$p]=1
  echo "$p"
}
choose_ports() {
  TAKEN=()
  ETCD_PORT=${PETNAME_ETCD_PORT:-$(pick_port)}
  TAKEN[$ETCD_PORT]=1
  ETCD_PEER_PORT=${PETNAME_ETCD_PEER_PORT:-$(pick_port)}
  TAKEN[$ETCD_PEER_PORT]=1
  APISERVER_PORT=${PETNAME_APISERVER_PORT:-$(pick_port)}
  TAKEN[$APISERVER_PORT]=1
  KCM_PORT=${PETNAME_KCM_PORT:-$(pick_port)}
  local v
  for v in PETNAME_ETCD_PORT PETNAME_ETCD_PEER_PORT PETNAME_APISERVER_PORT PETNAME_KCM_PORT; do
    [[ -z ${!v:-} ]] && continue
    if ! [[ ${!v} =~ ^[0-9]+$ ]] || ((${!v} < 1 || ${!v} > 65535)); then log "ERROR: $v=${!v} is not a port"; return 1; fi
    if port_busy "${!v}"; then log "ERROR: $v=${!v}: something already listens on 127.0.0.1:${!v}"; return 1; fi
  done
  if (($(printf '%s\n' "$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" "$KCM_PORT" | sort -u | wc -l) != 4)); then
    log "ERROR: the four ports must differ: $ETCD_PORT $ETCD_PEER_PORT $APISERVER_PORT $KCM_PORT"
    return 1
  fi
}

# ---- failure handling -----------------------------------------------------------------------
FAILED_LOG=""
SUCCESS=0
on_exit() {
  local rc=$?
  ((SUCCESS)) && return 0
  if [[ -n $FAILED_LOG && -f $FAILED_LOG ]]; then
    log "---- last 40 lines of $FAILED_LOG ----"
    tail -n 40 "$FAILED_LOG" >&2 || true
    log "----"
  fi
  log "start failed (rc=$rc); stopping what was started"
  "$HERE/down.sh" "$DIR" >&2 || true
}
trap on_exit EXIT
trap 'exit 130' INT TERM

start() { start_daemon "$DIR" "$@"; }
alive() { daemon_alive "$DIR" "$1"; }

# wait_for NAME DESCRIPTION CMD...: polls CMD until it succeeds, NAME dies or the timeout passes
wait_for() {
  local name=$1 what=$2 rc=0
  shift 2
  poll_daemon "$DIR" "$name" "$TIMEOUT" "$@" || rc=$?
  ((rc == 0)) && return 0
  FAILED_LOG="$DIR/$name.log"
  if ((rc == 1)); then log "$name exited while waiting for $what"; else log "timed out after ${TIMEOUT}s waiting for $what"; fi
  return 1
}

PKI="$DIR/pki"
PETNAME_APISERVER_ADDRESS=$ADDRESS "$HERE/certs.sh" "$PKI"

start_watchdog() {
  [[ -n ${PETNAME_CLUSTER_OWNER_PID:-} ]] || return 0
  [[ -f "$DIR/watchdog.pid" ]] && kill -0 "$(cat "$DIR/watchdog.pid")" 2>/dev/null && return 0
  kill -0 "$PETNAME_CLUSTER_OWNER_PID" 2>/dev/null || { log "ERROR: owner pid $PETNAME_CLUSTER_OWNER_PID is not running"; return 1; }
  # Polls the owner; stops when down.sh removes watchdog.pid. $0 names it for down.sh.
  # shellcheck disable=SC2016 # expanded by the watchdog's bash
  setsid bash -c 'while kill -0 "$1" 2>/dev/null && [[ -f "$2/watchdog.pid" ]]; do sleep 1; done
    [[ -f "$2/watchdog.pid" ]] && exec "$3" "$2"' petname-cluster-watchdog \
    "$PETNAME_CLUSTER_OWNER_PID" "$DIR" "$HERE/down.sh" </dev/null >>"$DIR/watchdog.log" 2>&1 &
  echo $! >"$DIR/watchdog.pid"
}

b64() { base64 -w0 <"$1"; }
write_kubeconfig() { # FILE USER CERT KEY
  local file=$1 user=$2 cert=$3 key=$4
  (
    umask 077
    cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: petname-test
  cluster:
    server: https://${ADDRESS}:${APISERVER_PORT}
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: ${user}
  user:
    client-certificate-data: $(b64 "$cert")
    client-key-data: $(b64 "$key")
contexts:
- name: ${user}@petname-test
  context:
    cluster: petname-test
    user: ${user}
    namespace: default
current-context: ${user}@petname-test
EOF
  )
}

curl_api() { curl -fsS --max-time 5 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "$@"; }

start_all() {
  mkdir -p "$DIR/etcd-data" "$DIR/kcm-certs" "$DIR/apiserver-certs"
  write_kubeconfig "$DIR/kubeconfig" petname-admin "$PKI/admin.crt" "$PKI/admin.key"
  write_kubeconfig "$DIR/controller-manager.kubeconfig" system:kube-controller-manager \
    "$PKI/controller-manager.crt" "$PKI/controller-manager.key"
  write_kubeconfig "$DIR/scheduler.kubeconfig" system:kube-scheduler "$PKI/scheduler.crt" "$PKI/scheduler.key"

  log "etcd on 127.0.0.1:$ETCD_PORT"
  start etcd "$ETCD" --name petname-test --data-dir "$DIR/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "petname-test=http://127.0.0.1:$ETCD_PEER_PORT" \
    --logger zap --log-outputs stderr --enable-v2=false --quota-backend-bytes 2147483648
  wait_for etcd "etcd health" curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" || return 1
  sleep 0.5
  alive etcd || { FAILED_LOG="$DIR/etcd.log"; log "etcd exited"; return 1; }

  log "kube-apiserver on https://$ADDRESS:$APISERVER_PORT"
  # --endpoint-reconciler-type none on loopback: the default reconciler would publish the advertise
  # address in Endpoints default/kubernetes, which rejects loopback addresses (error every 10 s) and
  # no pod runs there. On another address (node-up.sh) pods reach the apiserver through it.
  local reconciler=none
  [[ $ADDRESS == 127.0.0.1 ]] || reconciler=lease
  start kube-apiserver "$PETNAME_K8S_BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address "$ADDRESS" --advertise-address "$ADDRESS" --secure-port "$APISERVER_PORT" \
    --cert-dir "$DIR/apiserver-certs" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key" \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$PKI/apiserver-kubelet-client.key" --kubelet-preferred-address-types InternalIP,Hostname \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --authorization-mode Node,RBAC --allow-privileged=true \
    --endpoint-reconciler-type "$reconciler" --profiling=false --event-ttl 1h
  wait_for kube-apiserver "https://$ADDRESS:$APISERVER_PORT/readyz" \
    curl_api "https://$ADDRESS:$APISERVER_PORT/readyz" || return 1

  log "kube-controller-manager (health on https://127.0.0.1:$KCM_PORT/healthz)"
  # '*' minus what needs a cloud provider (those would only log that they are skipped).
  start kube-controller-manager "$PETNAME_K8S_BIN/kube-controller-manager" \
    --kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --cert-dir "$DIR/kcm-certs" \
    --leader-elect=false --use-service-account-credentials=true \
    --controllers '*,-cloud-node-lifecycle-controller,-service-lb-controller,-node-route-controller' \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
    --service-cluster-ip-range 10.96.0.0/16 --profiling=false
  wait_for kube-controller-manager "kube-controller-manager /healthz" \
    curl -fsSk --max-time 2 "https://127.0.0.1:$KCM_PORT/healthz" || return 1
  wait_for kube-controller-manager "service account default/default" \
    "$KUBECTL" --kubeconfig "$DIR/kubeconfig" -n default get serviceaccount default || return 1
}

port_clash() { grep -qs 'address already in use' "$DIR"/etcd.log "$DIR"/kube-apiserver.log "$DIR"/kube-controller-manager.log; }

attempt=1
while :; do
  choose_ports || exit 1
  start_watchdog || exit 1
  if start_all; then break; fi
  if ((attempt < 3)) && [[ -z ${PETNAME_ETCD_PORT:-} || -z ${PETNAME_ETCD_PEER_PORT:-} ||
    -z ${PETNAME_APISERVER_PORT:-} || -z ${PETNAME_KCM_PORT:-} ]] && port_clash; then
    log "a port was taken meanwhile; retrying with other ports"
    FAILED_LOG=""
    # (only the control plane: down.sh would also stop the node that node-up.sh is starting)
    for ((c = ${#COMPONENTS[@]} - 1; c >= 0; c--)); do stop_daemon "$DIR" "${COMPONENTS[c]}"; done
    rm -rf "$DIR/etcd-data"
    for c in "${COMPONENTS[@]}"; do mv -f "$DIR/$c.log" "$DIR/$c.log.attempt$attempt" 2>/dev/null || true; done
    attempt=$((attempt + 1))
    continue
  fi
  exit 1
done

cat >"$DIR/cluster.env" <<EOF
# Written by tests/cluster/up.sh; source it.
export PETNAME_CLUSTER_DIR='$DIR'
export KUBECONFIG='$DIR/kubeconfig'
export KUBECTL='$KUBECTL'
export PETNAME_APISERVER_URL='https://$ADDRESS:$APISERVER_PORT'
export PETNAME_CLUSTER_APISERVER_PORT=$APISERVER_PORT
export PETNAME_CLUSTER_ETCD_PORT=$ETCD_PORT
export PETNAME_CLUSTER_ETCD_PEER_PORT=$ETCD_PEER_PORT
export PETNAME_CLUSTER_KCM_PORT=$KCM_PORT
export PETNAME_CA_FILE='$PKI/ca.crt'
export PETNAME_ADMIN_CERT='$PKI/admin.crt'
export PETNAME_ADMIN_KEY='$PKI/admin.key'
EOF
SUCCESS=1
log "ready in ${SECONDS}s: KUBECONFIG=$DIR/kubeconfig (source $DIR/cluster.env)"
echo "$DIR/kubeconfig"
