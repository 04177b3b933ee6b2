# shellcheck shell=bash
# Kueue objects for the tests (tests/cluster/kueue_test.sh, tests/operator/integration/
# kueue_test.sh, tests/e2e/kueue_scenario.sh), printed as YAML for `kubectl apply -f -`.

# kueue_cluster_queue NAME FLAVOR CPU [PREEMPTION]: a ClusterQueue for every namespace with CPU
# cores and 64Gi of memory under ResourceFlavor FLAVOR; PREEMPTION is its withinClusterQueue
# policy (e.g. LowerPriority; none when empty)
kueue_cluster_queue() {
  cat <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: $1}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: ${4:-Never}}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: $2
      resources: [{name: cpu, nominalQuota: $3}, {name: memory, nominalQuota: 64Gi}]
YAML
}

# kueue_local_queue NAMESPACE NAME CLUSTER_QUEUE
kueue_local_queue() {
  cat <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: $2, namespace: $1}
spec: {clusterQueue: $3}
YAML
}

# kueue_priority_class NAME VALUE: a WorkloadPriorityClass
kueue_priority_class() {
  cat <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: $1}
value: $2
YAML
}
