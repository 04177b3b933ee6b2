#!/usr/bin/env bash
# Generates the PKI of a petname test control plane with openssl (called by up.sh).
#
#   tests/cluster/certs.sh PKI_DIR
#
# Writes into PKI_DIR (mode 0700, keys 0600):
#   ca.{crt,key}                   cluster CA (also signs CSRs via kube-controller-manager)
#   apiserver.{crt,key}            serving cert: 127.0.0.1, ::1, localhost, 10.96.0.1, kubernetes.default.svc...
#                                  and $PETNAME_APISERVER_ADDRESS when set
#   admin.{crt,key}                CN=petname-admin, O=system:masters
#   controller-manager.{crt,key}   CN=system:kube-controller-manager
#   scheduler.{crt,key}            CN=system:kube-scheduler
#   apiserver-kubelet-client.{crt,key}  CN=kube-apiserver-kubelet-client, O=system:masters
#   front-proxy-ca.{crt,key}, front-proxy-client.{crt,key}  request-header (aggregation) authentication
#   sa.{key,pub}                   service-account token signing key pair
#   node.{crt,key}                 CN=system:node:$PETNAME_NODE_NAME, O=system:nodes (only when
#                                  PETNAME_NODE_NAME is set: the kubelet of node-up.sh)
# Existing files are kept (idempotent). Nothing secret is printed.
set -euo pipefail

PKI=${1:?usage: certs.sh PKI_DIR}
mkdir -p "$PKI"
chmod 0700 "$PKI"
cd "$PKI"
umask 077
DAYS=${PETNAME_CERT_DAYS:-3650}

ossl() { openssl "$@" 2>/dev/null || { echo "[cluster/certs] openssl $1 failed" >&2; openssl "$@" >&2; exit 1; }; }

if [[ ! -f ca.crt ]]; then
  ossl genrsa -out ca.key 2048
  ossl req -x509 -new -nodes -key ca.key -sha256 -days "$DAYS" -subj "/CN=petname-test-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out ca.crt
fi

# issue NAME SUBJECT EXT_KEY_USAGE [SAN]
issue() {
  local name=$1 subj=$2 eku=$3 san=${4:-}
  [[ -f $name.crt && -f $name.key ]] && return 0
  ossl genrsa -out "$name.key" 2048
  ossl req -new -key "$name.key" -subj "$subj" -out "$name.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [[ -z $san ]] || echo "subjectAltName=$san"
  } >"$name.ext"
  ossl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days "$DAYS" \
    -extfile "$name.ext" -out "$name.crt"
  rm -f "$name.csr" "$name.ext"
}

extra_ip=""
[[ -z ${PETNAME_APISERVER_ADDRESS:-} || $PETNAME_APISERVER_ADDRESS == 127.0.0.1 ]] ||
  extra_ip="IP:$PETNAME_APISERVER_ADDRESS,"
issue apiserver "/CN=kube-apiserver" serverAuth \
  "${extra_ip}IP:127.0.0.1,IP:0:0:0:0:0:0:0:1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
issue admin "/O=system:masters/CN=petname-admin" clientAuth
issue controller-manager "/CN=system:kube-controller-manager" clientAuth
issue scheduler "/CN=system:kube-scheduler" clientAuth
issue apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
[[ -z ${PETNAME_NODE_NAME:-} ]] || issue node "/O=system:nodes/CN=system:node:$PETNAME_NODE_NAME" clientAuth

# Request-header authentication (aggregation layer): a separate CA, as kubeadm does. Without it every
# delegating component (controller-manager) logs "missing content for CA bundle ... requestheader".
if [[ ! -f front-proxy-ca.crt ]]; then
  ossl genrsa -out front-proxy-ca.key 2048
  ossl req -x509 -new -nodes -key front-proxy-ca.key -sha256 -days "$DAYS" -subj "/CN=petname-front-proxy-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out front-proxy-ca.crt
fi
if [[ ! -f front-proxy-client.crt ]]; then
  ossl genrsa -out front-proxy-client.key 2048
  ossl req -new -key front-proxy-client.key -subj "/CN=front-proxy-client" -out front-proxy-client.csr
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' \
    >front-proxy-client.ext
  ossl x509 -req -in front-proxy-client.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key -CAcreateserial \
    -sha256 -days "$DAYS" -extfile front-proxy-client.ext -out front-proxy-client.crt
  rm -f front-proxy-client.csr front-proxy-client.ext front-proxy-ca.srl
fi

if [[ ! -f sa.key ]]; then
  ossl genrsa -out sa.key 2048
  ossl rsa -in sa.key -pubout -out sa.pub
fi
rm -f ca.srl
chmod 0644 ./*.crt sa.pub
