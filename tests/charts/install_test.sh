#!/usr/bin/env bash
# Installs charts/petname-operator into a real control plane (tests/cluster/up.sh, temp dir) and
# runs build/bin/petname-operator locally as the chart's ServiceAccount (a TokenRequest token, so
# the apiserver authorises every call against the chart's RBAC and nothing else):
#   CRD established, Deployment accepted and rolled into a ReplicaSet, RBAC allows exactly what the
#   operator needs, examples/cpu-job.yaml turned into rank pods + Service; then the same with the
#   namespace-scoped install (Role, --namespace), with kueue.enabled: the rights on Kueue's Workloads
#   and LocalQueues in the watched namespace and the cluster-wide reads of ResourceFlavors,
#   WorkloadPriorityClasses, PriorityClasses and namespaces (SubjectAccessReviews: this cluster has
#   no Kueue).
#
#   tests/charts/install_test.sh [PETNAME_OPERATOR]     (default: build/bin/petname-operator)
#
# Last line: `N passed, N failed`. The cluster dir is kept when something failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OPERATOR=${1:-$ROOT/build/bin/petname-operator}
source "$ROOT/tests/cluster/env.sh"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/petname-chart-test.XXXXXX")
NS=petname-system
SA=system:serviceaccount:$NS:rel-petname-operator
CHECKS_LOG=$DIR/checks.log
source "$ROOT/tests/lib/checks.sh"
# shellcheck source-path=SCRIPTDIR source=../support/ports.sh
source "$ROOT/tests/support/ports.sh"
OP_PID=""

finish() {
  local rc=$?
  stop_operator
  "$ROOT/tests/cluster/down.sh" "$DIR" 2>/dev/null || true
  if ((rc == 0 && FAILED == 0)); then rm -rf "$DIR"; else echo "cluster dir kept for inspection: $DIR" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
trap 'exit 130' INT TERM
export PETNAME_CLUSTER_OWNER_PID=$$

k() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" "$@"; }
can() { [[ $(k auth can-i --as "$SA" "$@" 2>/dev/null) == yes ]]; }
cannot() { ! can "$@"; }
# For APIs this cluster does not serve (PodGroups, Kueue's) `kubectl auth can-i` cannot map the
# resource (it asks about group "" instead), so ask with a SubjectAccessReview.
# sar VERB GROUP RESOURCE [NAMESPACE [SUBRESOURCE]]   (NAMESPACE default: default; "" cluster-wide)
sar() {
  [[ $(k create -o jsonpath='{.status.allowed}' -f - 2>/dev/null <<YAML
apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: $SA
  groups: [system:serviceaccounts, "system:serviceaccounts:$NS", system:authenticated]
  resourceAttributes: {namespace: "${4-default}", verb: $1, group: $2, resource: $3, subresource: "${5:-}"}
YAML
  ) == true ]]
}

# A kubeconfig that authenticates as the ServiceAccount with a fresh token.
sa_kubeconfig() {
  local server ca token
  server=$(k config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
  ca=$(k config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
  token=$(k -n "$NS" create token rel-petname-operator --duration 1h)
  cat >"$DIR/sa.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "$server", certificate-authority-data: "$ca"}}]
users: [{name: sa, user: {token: "$token"}}]
contexts: [{name: sa, context: {cluster: test, user: sa}}]
current-context: sa
KUBECONFIG
}
start_operator() { # EXTRA_ARGS...
  local health
  health=$(free_port)
  "$OPERATOR" --kubeconfig "$DIR/sa.kubeconfig" --metrics-bind-address 0 \
    --health-probe-bind-address "127.0.0.1:$health" "$@" >>"$DIR/operator.log" 2>&1 &
  OP_PID=$!
  eventually 60 curl -sf "http://127.0.0.1:$health/readyz" >/dev/null
}
stop_operator() {
  if [[ -n $OP_PID ]]; then
    kill "$OP_PID" 2>/dev/null || true
    wait "$OP_PID" 2>/dev/null || true
    OP_PID=""
  fi
}
has_created_event() {
  k -n default get events --field-selector involvedObject.name=cpu-job -o jsonpath='{.items[*].reason}' |
    grep -qw Created
}
pods_of() { # NAMESPACE JOB: number of rank pods
  k -n "$1" get pods -l "petname.dev/job-name=$2" -o name 2>/dev/null | wc -l
}
has_pods() { [[ $(pods_of "$1" "$2") -eq $3 ]]; }
has_replicaset() { [[ $(k -n "$NS" get rs -l app.kubernetes.io/instance=rel -o name | wc -l) -eq 1 ]]; }
has_dashboard() { k -n "$NS" get cm -l grafana_dashboard=1 -o name | grep -q dashboard; }
has_phase() { [[ -n $(k -n default get pntj cpu-job -o jsonpath='{.status.phase}') ]]; }
can_pods() { can create pods -n default && can delete pods -n default; }
no_forbidden() { ! grep -q 'HTTP 403' "$DIR/operator.log"; }
no_clusterrole() { ! k get clusterrole rel-petname-operator; }
team_a_only() {
  can list petnametrainingjobs.petname.dev -n team-a &&
    cannot list petnametrainingjobs.petname.dev -n default
}

checks_plan 53
setup "petname-operator built at $OPERATOR" test -x "$OPERATOR"
setup "control plane (up.sh; logs in $DIR)" "$ROOT/tests/cluster/up.sh" "$DIR"

setup "helm install (cluster scope, leader election)" "$HELM" --kubeconfig "$DIR/kubeconfig" \
  install rel "$ROOT/charts/petname-operator" --namespace "$NS" --create-namespace \
  --set leaderElection.enabled=true
check "CRDs established" k wait --for condition=established --timeout 60s \
  crd/petnametrainingjobs.petname.dev crd/petnametrainingsweeps.petname.dev
check "Deployment accepted" k -n "$NS" get deployment rel-petname-operator
check "Deployment rolled into a ReplicaSet by the controller manager" eventually 60 has_replicaset
check "dashboard ConfigMap labelled grafana_dashboard=1" has_dashboard

check "RBAC: watch jobs in all namespaces" can watch petnametrainingjobs.petname.dev -A
check "RBAC: update job status" can update petnametrainingjobs.petname.dev --subresource status -n default
check "RBAC: create and delete pods" can_pods
check "RBAC: create services" can create services -n default
check "RBAC: delete jobs (TTL)" can delete petnametrainingjobs.petname.dev -n default
check "RBAC: create events" can create events -n default
check "RBAC: patch events (the count of a repeated one)" can patch events -n default
check "RBAC: no event deletes" cannot delete events -n default
check "RBAC: get and create coscheduling PodGroups" sar get scheduling.x-k8s.io podgroups
check "RBAC: create coscheduling PodGroups" sar create scheduling.x-k8s.io podgroups
check "RBAC: create Volcano PodGroups" sar create scheduling.volcano.sh podgroups
check "RBAC: update PodGroups (minMember follows the admission)" sar update scheduling.x-k8s.io podgroups
check "RBAC: no PodGroup deletes" eval '! sar delete scheduling.x-k8s.io podgroups'
check "RBAC: SubjectAccessReview answers no for unrelated APIs" eval '! sar create batch jobs'
check "RBAC: no Kueue Workloads without kueue.enabled" eval '! sar create kueue.x-k8s.io workloads &&
  ! sar list kueue.x-k8s.io resourceflavors ""'
check "RBAC: no pod updates" cannot update pods -n default
check "RBAC: no service deletes" cannot delete services -n default
check "RBAC: create rendezvous Secrets, get one that exists (its metadata) and delete it when the job controls it" eval 'can create secrets -n default &&
  can get secrets -n default && can delete secrets -n default'
check "RBAC: lists, watches and updates no Secret" eval 'cannot list secrets -n default &&
  cannot watch secrets -n default && cannot update secrets -n default'
check "RBAC: watch and create NetworkPolicies, never delete them" eval 'can watch networkpolicies.networking.k8s.io -A &&
  can create networkpolicies.networking.k8s.io -n default && can get networkpolicies.networking.k8s.io -n default &&
  cannot delete networkpolicies.networking.k8s.io -n default'
check "RBAC: no spec writes on jobs" cannot update petnametrainingjobs.petname.dev -n default
check "RBAC: create trial jobs (sweeps)" can create petnametrainingjobs.petname.dev -n default
check "RBAC: patch trial jobs (sweeps stop trials)" can patch petnametrainingjobs.petname.dev -n default
check "RBAC: watch sweeps in all namespaces" can watch petnametrainingsweeps.petname.dev -A
check "RBAC: update sweep status" can update petnametrainingsweeps.petname.dev --subresource status -n default
check "RBAC: no spec writes on sweeps" cannot update petnametrainingsweeps.petname.dev -n default
check "RBAC: no sweep deletes" cannot delete petnametrainingsweeps.petname.dev -n default
check "RBAC: no deployments" cannot create deployments.apps -n default
lease_rbac() {
  local verb
  for verb in get create update; do can "$verb" leases.coordination.k8s.io -n "$NS" || return 1; done
}
check "RBAC: leases get/create/update in the release namespace" lease_rbac
check "RBAC: no leases elsewhere" cannot update leases.coordination.k8s.io -n default

sa_kubeconfig
check "operator ready as the ServiceAccount (cluster scope, leader election, trace logs)" \
  start_operator --leader-elect --leader-elect-namespace "$NS" --log-level trace
lease_held() { [[ -n $(k -n "$NS" get lease petname-operator -o jsonpath='{.spec.holderIdentity}') ]]; }
check "the operator holds the Lease" eventually 30 lease_held
# examples/kueue-*.yaml hold Kueue's kinds: its CRDs (tests/cluster/build.sh --kueue caches them).
[[ -d $PETNAME_KUEUE_DIR/crds ]] || "$ROOT/tests/cluster/build.sh" --kueue >/dev/null
setup "Kueue $KUEUE_VERSION's CRDs installed" k apply --server-side -f "$PETNAME_KUEUE_DIR/crds/"
# The kustomize overlays of deploy/ over examples/kustomization.yaml (docs/getting-started/cluster.md)
checks_plan 5
example_files() { find "$ROOT/examples" -maxdepth 1 -name '*.yaml' ! -name kustomization.yaml | sort; }
every_example() {
  local f files args=()
  mapfile -t files < <(example_files)
  for f in "${files[@]}"; do args+=(-f "$f"); done
  "$@" "${args[@]}"
}
check "every example accepted by the apiserver (dry run)" \
  every_example k -n default apply --dry-run=server --validate=strict
for dir in examples deploy/local-cluster deploy/registry; do
  check "kubectl apply -k $dir accepted by the apiserver (dry run)" \
    k -n default apply --dry-run=server --validate=strict -k "$ROOT/$dir"
done
# local_cluster_claims: deploy/local-cluster asks every claim of the quick start ReadWriteOnce
local_cluster_claims() {
  k kustomize "$ROOT/deploy/local-cluster" | python3 -c '
import sys, yaml
claims = [d for d in yaml.safe_load_all(sys.stdin) if d and d["kind"] == "PersistentVolumeClaim"]
modes = {d["metadata"]["name"]: d["spec"]["accessModes"] for d in claims}
print(modes)
assert modes == {"petname-data": ["ReadWriteOnce"], "petname-checkpoints": ["ReadWriteOnce"]}, modes'
}
check "deploy/local-cluster: both claims ReadWriteOnce" local_cluster_claims
# registry_everywhere: with every example listed in examples/kustomization.yaml, deploy/registry
# renders every image field of every example (jobs, sweeps, pods, sidecars) under the registry
# that deploy/registry names, and values.yaml names the operator's image there too
registry_everywhere() {
  local tmp=$DIR/kustomize f files
  rm -rf "$tmp" && mkdir -p "$tmp" && cp -r "$ROOT/examples" "$ROOT/deploy" "$tmp/"
  mapfile -t files < <(example_files)
  { sed '/^resources:/q' "$ROOT/examples/kustomization.yaml"
    for f in "${files[@]}"; do echo "  - $(basename "$f")"; done; } >"$tmp/examples/kustomization.yaml"
  k kustomize "$tmp/deploy/registry" >"$tmp/rendered.yaml"
  python3 - "$ROOT" "$tmp/rendered.yaml" <<'PY'
import glob, os, re, sys, yaml
root, rendered = sys.argv[1], sys.argv[2]
def images(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "image" and isinstance(v, str):
                yield v
            else:
                yield from images(v)
    elif isinstance(node, list):
        for v in node:
            yield from images(v)
overlay = yaml.safe_load(open(os.path.join(root, "deploy/registry/kustomization.yaml")))
registries = {os.path.dirname(i["newName"]) for i in overlay["images"]}
operator = yaml.safe_load(open(os.path.join(root, "deploy/registry/values.yaml")))["image"]
assert len(registries) == 1 and os.path.dirname(operator["repository"]) in registries,     (registries, operator)
registry = registries.pop()
found = [i for d in yaml.safe_load_all(open(rendered)) for i in images(d)]
written = sum(len(re.findall(r"^\s*(?:- )?image: ", open(f).read(), re.M))
              for f in glob.glob(os.path.join(root, "examples", "*.yaml")))
outside = [i for i in found if not i.startswith(registry + "/")]
print(f"{len(found)} image fields rendered, {written} in the examples, outside {registry}: {outside}")
assert len(found) == written and not outside
PY
}
check "deploy/registry puts every image of every example under its registry (and values.yaml the operator's)" \
  registry_everywhere
setup "example cpu-job applied" k -n default apply -f "$ROOT/examples/cpu-job.yaml"
check "cpu-job turned into 2 rank pods" eventually 60 has_pods default cpu-job 2
check "cpu-job has its headless Service" eventually 30 k -n default get service cpu-job
check "cpu-job status written" eventually 30 has_phase
check "Created Event recorded as the ServiceAccount" eventually 30 has_created_event
check "operator log free of 403s" no_forbidden
token_not_logged() {
  local token
  token=$(sed -n 's/.*token: "\([^"]*\)".*/\1/p' "$DIR/sa.kubeconfig")
  [[ -n $token ]] && ! grep -qF "$token" "$DIR/operator.log" && ! grep -qi bearer "$DIR/operator.log"
}
check "bearer token never logged (trace level)" token_not_logged
stop_operator

setup "namespace team-a" k create namespace team-a
setup "helm upgrade to namespace scope, kueue.enabled" "$HELM" --kubeconfig "$DIR/kubeconfig" upgrade rel \
  "$ROOT/charts/petname-operator" --namespace "$NS" --set scope=namespace,watchNamespace=team-a \
  --set kueue.enabled=true --reuse-values
check "ClusterRole gone" eventually 30 no_clusterrole
check "RBAC: jobs in team-a only" team_a_only
kueue_workloads_rbac() {
  local verb
  for verb in get list watch create update delete; do sar "$verb" kueue.x-k8s.io workloads team-a || return 1; done
  for verb in get patch update; do sar "$verb" kueue.x-k8s.io workloads team-a status || return 1; done
}
check "RBAC (kueue.enabled): Workloads get/list/watch/create/update (finalizer, spec)/delete (replace), status get/patch/update in team-a" \
  eventually 30 kueue_workloads_rbac
check "RBAC (kueue.enabled): no Workload patch, none outside team-a" eval \
  '! sar patch kueue.x-k8s.io workloads team-a && ! sar create kueue.x-k8s.io workloads default &&
  ! sar update kueue.x-k8s.io workloads default'
kueue_cluster_reads() {
  local verb r
  for r in resourceflavors workloadpriorityclasses; do
    for verb in get list watch; do sar "$verb" kueue.x-k8s.io "$r" "" || return 1; done
    ! sar create kueue.x-k8s.io "$r" "" || return 1
  done
}
check "RBAC (kueue.enabled): read-only ResourceFlavors and WorkloadPriorityClasses (ClusterRole -kueue)" \
  kueue_cluster_reads
check "RBAC (kueue.enabled): no ClusterQueue writes" eval '! sar update kueue.x-k8s.io clusterqueues ""'
check "RBAC (kueue.enabled): LocalQueues get in team-a only; PriorityClasses get/list, namespaces get" eval \
  'sar get kueue.x-k8s.io localqueues team-a && ! sar get kueue.x-k8s.io localqueues default &&
  ! sar update kueue.x-k8s.io localqueues team-a && sar get scheduling.k8s.io priorityclasses "" &&
  sar list scheduling.k8s.io priorityclasses "" && ! sar create scheduling.k8s.io priorityclasses "" &&
  sar get "" namespaces "" && ! sar update "" namespaces ""'
sa_kubeconfig
check "operator ready as the ServiceAccount (--namespace team-a)" start_operator --namespace team-a
setup "team-a job applied" k -n team-a apply -f "$ROOT/examples/cpu-job.yaml"
check "team-a job turned into 2 rank pods" eventually 60 has_pods team-a cpu-job 2
check "namespaced operator log free of 403s" no_forbidden
stop_operator
setup "helm uninstall" "$HELM" --kubeconfig "$DIR/kubeconfig" uninstall rel --namespace "$NS"
check "CRD kept after uninstall" k get crd petnametrainingjobs.petname.dev
checks_done
