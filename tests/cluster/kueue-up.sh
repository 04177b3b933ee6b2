#!/usr/bin/env bash
# Starts Kueue (build.sh --kueue: the real manager of sigs.k8s.io/kueue@$KUEUE_VERSION) as a host
# process next to a running test cluster, like the other daemons of up.sh.
#
#   tests/cluster/kueue-up.sh [--replace] DIR
#
# DIR: a cluster started by up.sh or node-up.sh (DIR/kubeconfig, its apiserver running). Stop it with
# down.sh DIR (Kueue goes first). --replace first stops a Kueue that runs there (to start it with
# another configuration); without it a running Kueue is an error. Needs root: Kueue v0.17 reads its metrics serving certificate from
# the fixed path /etc/kueue/metrics/certs when its internal cert management is off, so kueue runs in
# a private mount namespace where DIR/kueue/certs is bind-mounted there (the host's
# /etc/kueue/metrics/certs is only created, empty, as the mount point).
#
# It applies Kueue's CRDs (server-side: the Workload CRD is 1.4 MB) and the namespace kueue-system,
# issues a webhook serving certificate for IP 127.0.0.1 signed by the cluster CA (DIR/pki/ca.*),
# writes DIR/kueue/config.yaml, starts kueue --kubeconfig DIR/kubeconfig --config DIR/kueue/config.yaml,
# waits for /readyz, applies Kueue's webhook configurations pointed at https://127.0.0.1:<webhook port>
# (kueue-webhooks.py: the kueue.x-k8s.io and batch webhooks) and waits until a server-side dry-run
# create of a ResourceFlavor passes them.
#
# Configuration (config.kueue.x-k8s.io/v1beta2): namespace kueue-system, internal cert management
# off, leader election off, manageJobsWithoutQueueName false (unless set below), integrations
# batch/job and the
# external framework PetNameTrainingJob.v1alpha1.petname.dev, feature gates PartialAdmission on
# (its default) and VisibilityOnDemand off (its aggregated API server would need an APIService and
# listen on :8082; nothing here uses it). Health, metrics and webhook listen on 127.0.0.1 only.
#
# Env (all optional):
#   PETNAME_KUEUE_WEBHOOK_PORT, PETNAME_KUEUE_HEALTH_PORT, PETNAME_KUEUE_METRICS_PORT
#       ports on 127.0.0.1 (webhook https, /healthz + /readyz http, /metrics https); each one unset
#       is a random free one (never 8080/8081/9090: they come from 20000 up)
#   PETNAME_KUEUE_FEATURE_GATES  more Kueue feature gates, "Name=true,Other=false" (added to the
#       config's featureGates)
#   PETNAME_KUEUE_WAIT_FOR_PODS_READY  "TIMEOUT RECOVERY_TIMEOUT" (durations such as 20s 60s): turns
#       on the config's waitForPodsReady with these timeouts and a requeuing strategy (a
#       Workload evicted for PodsReadyTimeout is queued again after a 10 s backoff, doubling up
#       to 60 s, and deactivated once it has been queued again 3 times); off when unset
#   PETNAME_KUEUE_REQUEUING  "LIMIT BASE MAX" (whole numbers): that requeuing strategy's
#       backoffLimitCount, backoffBaseSeconds and backoffMaxSeconds instead (with the above)
#   PETNAME_KUEUE_MANAGE_JOBS_WITHOUT_QUEUE_NAME  true: the config's manageJobsWithoutQueueName
#   PETNAME_KUEUE_MANAGED_NAMESPACES  the config's managedJobsNamespaceSelector, as a YAML flow
#       map (e.g. '{matchLabels: {team: a}}'); Kueue's default when unset
#   PETNAME_KUEUE_LABEL_KEYS_TO_COPY  label keys, comma-separated: the config's
#       integrations.labelKeysToCopy
#   PETNAME_CLUSTER_TIMEOUT seconds to wait for each readiness step (default 120)
#   PETNAME_CACHE, KUEUE_VERSION  where Kueue is (env.sh: $KUEUE; build.sh --kueue runs if it is missing)
# Outputs: DIR/kueue.pid, DIR/kueue.log, DIR/kueue/{config.yaml,certs/,webhooks.json}; appends
# PETNAME_KUEUE_CONFIG and PETNAME_CLUSTER_KUEUE_{WEBHOOK,HEALTH,METRICS}_PORT to DIR/cluster.env.
# Prints nothing on stdout. On failure: the last 40 lines of DIR/kueue.log on stderr, Kueue stopped,
# its webhook configurations removed, exit 1.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=env.sh
source "$HERE/env.sh"
# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$HERE/../support/ports.sh"

log() { printf '[cluster/kueue-up] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$HERE/lib.sh"

REPLACE=0
if [[ ${1:-} == --replace ]]; then
  REPLACE=1
  shift
fi
DIR=${1:?usage: kueue-up.sh [--replace] DIR}
DIR=$(cd "$DIR" && pwd)
TIMEOUT=${PETNAME_CLUSTER_TIMEOUT:-120}
KDIR=$DIR/kueue
CONFIG=$KDIR/config.yaml
METRICS_CERT_DIR=/etc/kueue/metrics/certs
WEBHOOK_GROUPS=(kueue.x-k8s.io batch)
WEBHOOK_CONFIGS=(mutatingwebhookconfiguration/kueue-mutating-webhook-configuration
  validatingwebhookconfiguration/kueue-validating-webhook-configuration)

[[ -f $DIR/kubeconfig && -f $DIR/pki/ca.key ]] || die "$DIR is not a cluster of up.sh (no kubeconfig or pki/ca.key)"
daemon_alive "$DIR" kube-apiserver || die "the kube-apiserver of $DIR is not running"
((REPLACE == 0)) || stop_daemon "$DIR" kueue
daemon_alive "$DIR" kueue && die "kueue of $DIR is still running (pid $(cat "$DIR/kueue.pid")); run down.sh $DIR first, or pass --replace"
[[ $(id -u) -eq 0 ]] || die "needs root (a private mount namespace for $METRICS_CERT_DIR)"
if ! "$HERE/build.sh" --kueue --check; then
  log "Kueue $KUEUE_VERSION (or the control plane's tools) missing; running build.sh --kueue"
  "$HERE/build.sh" --kueue >&2
fi

k() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" "$@"; }

# ---- ports -------------------------------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick() { # VAR: the port given in VAR, else a free one that none of the earlier picks has
  local var=$1 p
  if [[ -n ${!var:-} ]]; then
    [[ ${!var} =~ ^[0-9]+$ ]] && ((${!var} >= 1 && ${!var} <= 65535)) || die "$var=${!var} is not a port"
    port_busy "${!var}" && die "$var=${!var}: something already listens on 127.0.0.1:${!var}"
    echo "${!var}"
    return
  fi
  while :; do
    p=$(free_port)
    [[ " ${PICKED[*]} " == *" $p "* ]] || break
  done
  echo "$p"
}
PICKED=()
WEBHOOK_PORT=$(pick PETNAME_KUEUE_WEBHOOK_PORT)
PICKED+=("$WEBHOOK_PORT")
HEALTH_PORT=$(pick PETNAME_KUEUE_HEALTH_PORT)
PICKED+=("$HEALTH_PORT")
METRICS_PORT=$(pick PETNAME_KUEUE_METRICS_PORT)
(($(printf '%s\n' "$WEBHOOK_PORT" "$HEALTH_PORT" "$METRICS_PORT" | sort -u | wc -l) == 3)) ||
  die "the three Kueue ports must differ: $WEBHOOK_PORT $HEALTH_PORT $METRICS_PORT"

# ---- failure handling ----------------------------------------------------------------------------
SUCCESS=0
on_exit() {
  local rc=$?
  ((SUCCESS)) && return 0
  if [[ -f $DIR/kueue.log ]]; then
    log "---- last 40 lines of $DIR/kueue.log ----"
    tail -n 40 "$DIR/kueue.log" >&2 || true
    log "----"
  fi
  log "start failed (rc=$rc); stopping Kueue and removing its webhook configurations"
  stop_daemon "$DIR" kueue
  k delete --ignore-not-found --wait=false "${WEBHOOK_CONFIGS[@]}" >/dev/null 2>&1 || true
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# ---- certificates: webhook serving (IP 127.0.0.1) and metrics, signed by the cluster CA ----------
issue_cert() {
  local d=$KDIR/certs
  [[ -f $d/tls.crt && -f $d/tls.key ]] && return 0
  mkdir -p "$d"
  (
    umask 077
    openssl genrsa -out "$d/tls.key" 2048 2>/dev/null
    openssl req -new -key "$d/tls.key" -subj "/CN=kueue-webhook" -out "$d/tls.csr" 2>/dev/null
    printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$d/tls.ext"
    openssl x509 -req -in "$d/tls.csr" -CA "$DIR/pki/ca.crt" -CAkey "$DIR/pki/ca.key" -CAcreateserial \
      -sha256 -days "${PETNAME_CERT_DAYS:-3650}" -extfile "$d/tls.ext" -out "$d/tls.crt" 2>/dev/null
  ) || die "openssl could not issue the Kueue serving certificate"
  rm -f "$d/tls.csr" "$d/tls.ext"
}

feature_gates_yaml() {
  local gate
  echo "featureGates:"
  echo "  PartialAdmission: true"
  echo "  VisibilityOnDemand: false"
  [[ -n ${PETNAME_KUEUE_FEATURE_GATES:-} ]] || return 0
  for gate in ${PETNAME_KUEUE_FEATURE_GATES//,/ }; do
    [[ $gate =~ ^[A-Za-z0-9]+=(true|false)$ ]] || die "PETNAME_KUEUE_FEATURE_GATES: '$gate' is not Name=true|false"
    echo "  ${gate%%=*}: ${gate#*=}"
  done
}

wait_for_pods_ready_yaml() {
  [[ -n ${PETNAME_KUEUE_WAIT_FOR_PODS_READY:-} ]] || return 0
  local d='[0-9]+(ms|s|m|h)' timeouts
  [[ $PETNAME_KUEUE_WAIT_FOR_PODS_READY =~ ^$d\ $d$ ]] ||
    die "PETNAME_KUEUE_WAIT_FOR_PODS_READY: '$PETNAME_KUEUE_WAIT_FOR_PODS_READY' is not 'TIMEOUT RECOVERY_TIMEOUT'"
  read -r -a timeouts <<<"$PETNAME_KUEUE_WAIT_FOR_PODS_READY"
  local requeuing=(3 10 60)
  if [[ -n ${PETNAME_KUEUE_REQUEUING:-} ]]; then
    [[ $PETNAME_KUEUE_REQUEUING =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] ||
      die "PETNAME_KUEUE_REQUEUING: '$PETNAME_KUEUE_REQUEUING' is not 'LIMIT BASE MAX'"
    read -r -a requeuing <<<"$PETNAME_KUEUE_REQUEUING"
  fi
  printf '%s\n' "waitForPodsReady:" "  timeout: ${timeouts[0]}" "  recoveryTimeout: ${timeouts[1]}" \
    "  requeuingStrategy: {timestamp: Eviction, backoffLimitCount: ${requeuing[0]}, backoffBaseSeconds: ${requeuing[1]}, backoffMaxSeconds: ${requeuing[2]}}"
}

# manageJobsWithoutQueueName, and managedJobsNamespaceSelector when one is given.
jobs_yaml() {
  local manage=${PETNAME_KUEUE_MANAGE_JOBS_WITHOUT_QUEUE_NAME:-false}
  [[ $manage == true || $manage == false ]] ||
    die "PETNAME_KUEUE_MANAGE_JOBS_WITHOUT_QUEUE_NAME: '$manage' is not true or false"
  echo "manageJobsWithoutQueueName: $manage"
  [[ -z ${PETNAME_KUEUE_MANAGED_NAMESPACES:-} ]] ||
    echo "managedJobsNamespaceSelector: $PETNAME_KUEUE_MANAGED_NAMESPACES"
}

label_keys_yaml() {
  [[ -n ${PETNAME_KUEUE_LABEL_KEYS_TO_COPY:-} ]] || return 0
  [[ $PETNAME_KUEUE_LABEL_KEYS_TO_COPY =~ ^[A-Za-z0-9./_-]+(,[A-Za-z0-9./_-]+)*$ ]] ||
    die "PETNAME_KUEUE_LABEL_KEYS_TO_COPY: '$PETNAME_KUEUE_LABEL_KEYS_TO_COPY' is not a list of label keys"
  echo "  labelKeysToCopy: [${PETNAME_KUEUE_LABEL_KEYS_TO_COPY//,/, }]"
}

write_config() {
  cat >"$CONFIG" <<EOF
# Written by tests/cluster/kueue-up.sh for Kueue $KUEUE_VERSION.
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
$(jobs_yaml)
internalCertManagement:
  enable: false
leaderElection:
  leaderElect: false
webhook:
  host: 127.0.0.1
  port: $WEBHOOK_PORT
  certDir: $KDIR/certs
health:
  healthProbeBindAddress: 127.0.0.1:$HEALTH_PORT
metrics:
  bindAddress: 127.0.0.1:$METRICS_PORT
clientConnection:
  qps: 50
  burst: 100
integrations:
  frameworks:
  - batch/job
  externalFrameworks:
  - PetNameTrainingJob.v1alpha1.petname.dev
$(label_keys_yaml)
$(feature_gates_yaml)
$(wait_for_pods_ready_yaml)
EOF
}

# ---- Kueue's API: CRDs and namespace ----------------------------------------------------------------
apply_crds() {
  k apply --server-side --force-conflicts --field-manager petname-kueue-up -f "$PETNAME_KUEUE_DIR/crds/" >/dev/null ||
    die "applying Kueue's CRDs failed"
  local crds=() f
  for f in "$PETNAME_KUEUE_DIR"/crds/kueue.x-k8s.io_*.yaml; do
    f=${f##*/kueue.x-k8s.io_}
    crds+=("crd/${f%.yaml}.kueue.x-k8s.io")
  done
  k wait --for condition=established --timeout "${TIMEOUT}s" "${crds[@]}" >/dev/null ||
    die "Kueue's CRDs were not established"
  k create namespace kueue-system --dry-run=client -o yaml | k apply -f - >/dev/null
}

# A ResourceFlavor created with dryRun=All passes Kueue's mutating and validating webhooks.
webhooks_answer() {
  k create --dry-run=server -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: petname-kueue-up-probe
YAML
}

wait_for() { # WHAT CMD...
  local what=$1 rc=0
  shift
  poll_daemon "$DIR" kueue "$TIMEOUT" "$@" || rc=$?
  ((rc == 0)) && return 0
  if ((rc == 1)); then log "kueue exited while waiting for $what"; else log "timed out after ${TIMEOUT}s waiting for $what"; fi
  return 1
}

# Each part of the configuration once in this shell, so that a bad setting stops the start here.
jobs_yaml >/dev/null
label_keys_yaml >/dev/null
feature_gates_yaml >/dev/null
wait_for_pods_ready_yaml >/dev/null
mkdir -p "$KDIR"
issue_cert
write_config
apply_crds
mkdir -p "$METRICS_CERT_DIR"
log "kueue $KUEUE_VERSION: webhook https://127.0.0.1:$WEBHOOK_PORT, health http://127.0.0.1:$HEALTH_PORT, metrics https://127.0.0.1:$METRICS_PORT"
# (sh -c runs in the new mount namespace and execs kueue: kueue.pid is kueue's pid)
# shellcheck disable=SC2016 # expanded by sh
start_daemon "$DIR" kueue unshare --mount --propagation private -- \
  sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' petname-kueue "$KDIR/certs" "$METRICS_CERT_DIR" \
  "$KUEUE" --kubeconfig "$DIR/kubeconfig" --config "$CONFIG"
wait_for "/readyz" curl -fsS --max-time 2 "http://127.0.0.1:$HEALTH_PORT/readyz"
python3 "$HERE/kueue-webhooks.py" "$PETNAME_KUEUE_DIR/webhook-manifests.yaml" "https://127.0.0.1:$WEBHOOK_PORT" \
  "$DIR/pki/ca.crt" "${WEBHOOK_GROUPS[@]}" >"$KDIR/webhooks.json"
k apply -f "$KDIR/webhooks.json" >/dev/null || die "applying Kueue's webhook configurations failed"
wait_for "Kueue's webhooks (dry-run create of a ResourceFlavor)" webhooks_answer

if [[ -f $DIR/cluster.env ]]; then
  sed -i '/^export PETNAME_KUEUE_CONFIG=/d; /^export PETNAME_CLUSTER_KUEUE_/d' "$DIR/cluster.env"
  cat >>"$DIR/cluster.env" <<EOF
export PETNAME_KUEUE_CONFIG='$CONFIG'
export PETNAME_CLUSTER_KUEUE_WEBHOOK_PORT=$WEBHOOK_PORT
export PETNAME_CLUSTER_KUEUE_HEALTH_PORT=$HEALTH_PORT
export PETNAME_CLUSTER_KUEUE_METRICS_PORT=$METRICS_PORT
EOF
fi
SUCCESS=1
log "ready in ${SECONDS}s (log: $DIR/kueue.log)"
