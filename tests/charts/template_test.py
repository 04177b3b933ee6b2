#!/usr/bin/env python3
"""Offline tests of charts/petname-operator: helm lint, the chart CRDs equal to crds/, and
`helm template` under several value sets with assertions on the rendered objects (among them
the PodMonitor and the `helm test` hook), docs/reference/helm-values.md's values table against
values.schema.json and values.yaml, and deploy/registry: its registry set with its one
documented command leaves no image outside it in the chart or the examples (`kubectl kustomize`;
kubectl from $KUBECTL, else the PATH).

    tests/charts/template_test.py HELM

Prints one `ok -`/`not ok -` line per check and `N passed, N failed` last; exit 1 on a failure.
"""
import atexit
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "petname-operator"
VALUES_DOC = ROOT / "docs" / "reference" / "helm-values.md"  # the table of every value
HELM = sys.argv[1] if len(sys.argv) > 1 else "helm"
KUBECTL = os.environ.get("KUBECTL") or "kubectl"

# What operator/ does through the API (informers: list + watch; reconciler: create, get on a
# 409, delete pods, PUT status, delete jobs after their TTL, create Events and patch the count
# of a repeated one, get/create PodGroups; each job's rendezvous Secret: create, and delete one
# that exists while the job has no pods and the job controls, after a get of its metadata only;
# sweep reconciler: create trial jobs, patch them to suspend a
# stopped trial, PUT the sweep's status, and owner references with blockOwnerDeletion, which need update on the
# sweeps' finalizers where OwnerReferencesPermissionEnforcement is on). The chart must grant
# exactly this and nothing more.
OPERATOR_RULES = [
    {"apiGroups": ["petname.dev"], "resources": ["petnametrainingjobs"],
     "verbs": ["get", "list", "watch", "create", "patch", "delete"]},
    {"apiGroups": ["petname.dev"], "resources": ["petnametrainingjobs/status"],
     "verbs": ["update"]},
    {"apiGroups": ["petname.dev"], "resources": ["petnametrainingsweeps"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["petname.dev"], "resources": ["petnametrainingsweeps/status"],
     "verbs": ["update"]},
    {"apiGroups": ["petname.dev"], "resources": ["petnametrainingsweeps/finalizers"],
     "verbs": ["update"]},
    {"apiGroups": [""], "resources": ["pods"],
     "verbs": ["get", "list", "watch", "create", "delete"]},
    {"apiGroups": [""], "resources": ["services"], "verbs": ["get", "list", "watch", "create"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "create", "delete"]},
    {"apiGroups": ["scheduling.x-k8s.io", "scheduling.volcano.sh"], "resources": ["podgroups"],
     "verbs": ["get", "create", "update"]},
    # networkPolicy.jobs.enabled (the default): each job's NetworkPolicy (informer; create; get
    # on a 409). The garbage collector deletes it with the job.
    {"apiGroups": ["networking.k8s.io"], "resources": ["networkpolicies"],
     "verbs": ["get", "list", "watch", "create"]},
]
# The peers the operator admits to the rank pods' metrics ports by default: its own pods in the
# release namespace, and the Prometheus pods of the release namespace (no other namespace).
METRICS_FROM = [
    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "petname-system"}},
     "podSelector": {"matchLabels": {"app.kubernetes.io/instance": "rel",
                                     "app.kubernetes.io/name": "petname-operator"}}},
    {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "petname-system"}},
     "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}},
]
# With kueue.enabled: the job's Kueue Workload (create, watch; update: remove Kueue's resource-in-use
# finalizer, match its spec to an edited job; delete: replace one that holds quota and no longer
# matches; its status: finish it, release the quota of an evicted one; the namespace's LocalQueue
# default) in the operator's Role or ClusterRole, and the cluster-scoped reads (an admission's
# ResourceFlavors, a job's WorkloadPriorityClass or PriorityClass, a namespace's labels).
KUEUE_RULES = [
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"],
     "verbs": ["get", "list", "watch", "create", "update", "delete"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"],
     "verbs": ["get", "patch", "update"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["localqueues"], "verbs": ["get"]},
]
KUEUE_CLUSTER_RULES = [
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["resourceflavors"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloadpriorityclasses"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"],
     "verbs": ["get", "list"]},
    {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get"]},
]
LEASE_RULES = [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                "verbs": ["get", "create", "update"]}]

passed = failed = planned = 0
finished = False


@atexit.register
def _stopped_early():
    """An exit before the summary line (sys.exit, os._exit aside) fails the suite."""
    if not finished:
        print(f"not ok - the suite exited before its last line\n{passed} passed, {failed + 1} failed")
        sys.stdout.flush()
        os._exit(1)


def checks_plan(n):
    """The suite runs n more checks (docs/contributing/testing.md counts the plan: tests/lint/testing_counts.py)."""
    global planned
    planned += n


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok - {name}")
    else:
        failed += 1
        print(f"not ok - {name}{': ' + detail if detail else ''}")


def helm(*args):
    return subprocess.run([HELM, *args], capture_output=True, text=True)


def render(*sets, namespace="petname-system"):
    args = ["template", "rel", str(CHART), "--namespace", namespace]
    for s in sets:
        args += ["--set", s]
    r = helm(*args)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    objs = [o for o in yaml.safe_load_all(r.stdout) if o]
    return {(o["kind"], o["metadata"]["name"]): o for o in objs}


def kinds(objs):
    return sorted(k for k, _ in objs)


def container(objs):
    return objs[("Deployment", "rel-petname-operator")]["spec"]["template"]["spec"]["containers"][0]


def test_lint_and_crds():
    r = helm("lint", "--strict", str(CHART))
    check("helm lint --strict", r.returncode == 0, r.stdout + r.stderr)
    top = sorted(p.name for p in (ROOT / "crds").glob("*.yaml"))
    chart = sorted(p.name for p in (CHART / "crds").glob("*.yaml"))
    check("chart crds/ holds the same files as crds/", top == chart, f"{top} vs {chart}")
    for name in top:
        same = (ROOT / "crds" / name).read_bytes() == (CHART / "crds" / name).read_bytes()
        check(f"chart crds/{name} identical to crds/{name}", same)


def test_defaults():
    objs = render()
    check("defaults: object kinds (the Pod is the helm test hook)", kinds(objs) == [
        "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "NetworkPolicy", "Pod",
        "Service", "ServiceAccount"], str(kinds(objs)))
    role = objs[("ClusterRole", "rel-petname-operator")]
    check("defaults: ClusterRole has exactly the operator's rules",
          role["rules"] == OPERATOR_RULES, json.dumps(role["rules"]))
    binding = objs[("ClusterRoleBinding", "rel-petname-operator")]
    check("defaults: binding names the ServiceAccount",
          binding["subjects"] == [{"kind": "ServiceAccount", "name": "rel-petname-operator",
                                   "namespace": "petname-system"}]
          and binding["roleRef"]["kind"] == "ClusterRole")
    dep = objs[("Deployment", "rel-petname-operator")]
    pod = dep["spec"]["template"]["spec"]
    c = container(objs)
    check("defaults: one replica", dep["spec"]["replicas"] == 1)
    check("defaults: the image docker/build.sh tags (localhost/petname-operator:dev)",
          c["image"] == "localhost/petname-operator:dev", c["image"])
    check("defaults: runs as the chart's ServiceAccount",
          pod["serviceAccountName"] == "rel-petname-operator")
    psc, sc = pod["securityContext"], c["securityContext"]
    check("hardened: runAsNonRoot with a non-zero uid",
          psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) > 0)
    check("hardened: seccomp RuntimeDefault",
          psc.get("seccompProfile", {}).get("type") == "RuntimeDefault")
    check("hardened: readOnlyRootFilesystem", sc.get("readOnlyRootFilesystem") is True)
    check("hardened: no privilege escalation", sc.get("allowPrivilegeEscalation") is False)
    check("hardened: drops ALL capabilities", sc.get("capabilities", {}).get("drop") == ["ALL"])
    check("resources: requests and limits",
          set(c["resources"]) == {"requests", "limits"}
          and set(c["resources"]["limits"]) == {"cpu", "memory"})
    check("probes: liveness /healthz, readiness /readyz on the health port",
          c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
          and c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"})
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    check("ports: metrics 8080, health 8081", ports == {"http-metrics": 8080, "health": 8081})
    check("args: all namespaces, bind addresses, no leader election",
          c["args"] == ["--workers=4", "--qps=0", "--burst=30", "--log-level=info",
                        "--max-pods-per-sweep=256", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081",
                        metrics_from_arg(METRICS_FROM)],
          str(c["args"]))
    svc = objs[("Service", "rel-petname-operator-metrics")]
    check("metrics Service selects the operator pods on http-metrics and health",
          svc["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"]
          and [(p["name"], p["port"], p["targetPort"]) for p in svc["spec"]["ports"]]
          == [("http-metrics", 8080, "http-metrics"), ("health", 8081, "health")])
    cm = objs[("ConfigMap", "rel-petname-operator-dashboard")]
    dashboard = (CHART / "dashboards" / "petname-training.json").read_text()
    check("dashboard ConfigMap labelled grafana_dashboard: \"1\"",
          cm["metadata"]["labels"].get("grafana_dashboard") == "1")
    check("dashboard ConfigMap holds dashboards/petname-training.json",
          json.loads(cm["data"]["petname-training.json"]) == json.loads(dashboard))


def test_namespace_scope():
    objs = render("scope=namespace")
    check("namespace scope: Role + RoleBinding, no cluster-wide RBAC",
          "ClusterRole" not in kinds(objs) and "ClusterRoleBinding" not in kinds(objs)
          and "Role" in kinds(objs) and "RoleBinding" in kinds(objs), str(kinds(objs)))
    role = objs[("Role", "rel-petname-operator")]
    check("namespace scope: Role in the release namespace with the operator's rules",
          role["metadata"]["namespace"] == "petname-system" and role["rules"] == OPERATOR_RULES)
    check("namespace scope: --namespace passed",
          container(objs)["args"][0] == "--namespace=petname-system")
    objs = render("scope=namespace", "watchNamespace=team-a")
    role, binding = objs[("Role", "rel-petname-operator")], objs[("RoleBinding", "rel-petname-operator")]
    check("watchNamespace: Role and RoleBinding there, subject in the release namespace",
          role["metadata"]["namespace"] == "team-a" and binding["metadata"]["namespace"] == "team-a"
          and binding["subjects"][0]["namespace"] == "petname-system")
    check("watchNamespace: --namespace=team-a", container(objs)["args"][0] == "--namespace=team-a")


def test_leader_election():
    objs = render("replicas=2")
    check("replicas > 1 switches leader election on",
          "--leader-elect" in container(objs)["args"]
          and ("Role", "rel-petname-operator-leader-election") in objs)
    objs = render("leaderElection.enabled=true", "leaderElection.leaseDuration=30s")
    args = container(objs)["args"]
    check("leader election: --leader-elect with the Lease in the release namespace",
          "--leader-elect" in args and "--leader-elect-namespace=petname-system" in args
          and "--leader-elect-lease-duration=30s" in args
          and "--leader-elect-renew-deadline=10s" in args
          and "--leader-elect-retry-period=2s" in args, str(args))
    role = objs.get(("Role", "rel-petname-operator-leader-election"))
    check("leader election: a Role for leases only",
          role is not None and role["rules"] == LEASE_RULES)
    check("leader election: bound to the ServiceAccount",
          ("RoleBinding", "rel-petname-operator-leader-election") in objs)


def test_kueue():
    default_args = container(render())["args"]
    check("kueue off by default: no --kueue", "--kueue" not in default_args, str(default_args))
    objs = render("kueue.enabled=true")
    role = objs[("ClusterRole", "rel-petname-operator")]
    check("kueue.enabled: ClusterRole has the operator's rules, then Kueue's",
          role["rules"] == OPERATOR_RULES + KUEUE_RULES + KUEUE_CLUSTER_RULES,
          json.dumps(role["rules"]))
    check("kueue.enabled: --kueue after the other arguments",
          container(objs)["args"] == default_args + ["--kueue"], str(container(objs)["args"]))
    check("kueue.enabled, cluster scope: no second ClusterRole",
          kinds(objs).count("ClusterRole") == 1, str(kinds(objs)))
    objs = render("kueue.enabled=true", "scope=namespace", "watchNamespace=team-a")
    role = objs[("Role", "rel-petname-operator")]
    check("kueue.enabled, namespace scope: the Role has the operator's and the Workload rules",
          role["rules"] == OPERATOR_RULES + KUEUE_RULES, json.dumps(role["rules"]))
    cluster_role = objs.get(("ClusterRole", "rel-petname-operator-kueue"))
    check("kueue.enabled, namespace scope: ClusterRole -kueue reads flavors and priority classes",
          cluster_role is not None and cluster_role["rules"] == KUEUE_CLUSTER_RULES)
    binding = objs.get(("ClusterRoleBinding", "rel-petname-operator-kueue"))
    check("kueue.enabled, namespace scope: ClusterRoleBinding -kueue to the ServiceAccount",
          binding is not None
          and binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                     "name": "rel-petname-operator-kueue"}
          and binding["subjects"] == [{"kind": "ServiceAccount", "name": "rel-petname-operator",
                                       "namespace": "petname-system"}])
    check("kueue.enabled, namespace scope: --namespace and --kueue",
          container(objs)["args"][0] == "--namespace=team-a"
          and container(objs)["args"][-1] == "--kueue")
    check("kueue.enabled without kueue.configuration: no --kueue-config, no ConfigMap",
          not any(a.startswith("--kueue-config") for a in container(objs)["args"])
          and ("ConfigMap", "rel-petname-operator-kueue-config") not in objs)
    objs = render("kueue.enabled=true", "kueue.configuration=kind: Configuration")
    cm = objs.get(("ConfigMap", "rel-petname-operator-kueue-config"))
    check("kueue.configuration: a ConfigMap with the text as config.yaml",
          cm is not None and cm["data"] == {"config.yaml": "kind: Configuration"}, json.dumps(cm))
    pod = objs[("Deployment", "rel-petname-operator")]["spec"]["template"]
    check("kueue.configuration: mounted and passed as --kueue-config",
          container(objs)["args"][-1] == "--kueue-config=/etc/petname-operator/kueue/config.yaml"
          and container(objs)["volumeMounts"] == [{"name": "kueue-config", "readOnly": True,
                                                  "mountPath": "/etc/petname-operator/kueue"}]
          and pod["spec"]["volumes"] == [{"name": "kueue-config", "configMap": {
              "name": "rel-petname-operator-kueue-config"}}], json.dumps(pod))
    check("kueue.configuration: a checksum annotation rolls the pods when it changes",
          "checksum/kueue-config" in pod["metadata"].get("annotations", {}), json.dumps(pod))
    objs = render("kueue.configuration=kind: Configuration")
    check("kueue.configuration without kueue.enabled: nothing",
          ("ConfigMap", "rel-petname-operator-kueue-config") not in objs
          and not any(a.startswith("--kueue") for a in container(objs)["args"]))
    objs = render("kueue.enabled=true", "rbac.create=false")
    check("kueue.enabled, rbac.create=false: no RBAC objects",
          not [k for k in kinds(objs) if "Role" in k], str(kinds(objs)))


def test_monitoring():
    objs = render("serviceMonitor.enabled=true", "prometheusRule.enabled=true",
                  "serviceMonitor.labels.release=kps", "dashboard.enabled=false")
    sm = objs.get(("ServiceMonitor", "rel-petname-operator"))
    check("ServiceMonitor scrapes http-metrics with the extra label",
          sm is not None and sm["spec"]["endpoints"][0]["port"] == "http-metrics"
          and sm["metadata"]["labels"]["release"] == "kps")
    pr = objs.get(("PrometheusRule", "rel-petname-operator"))
    rules = yaml.safe_load((CHART / "rules" / "petname.rules.yaml").read_text())
    check("PrometheusRule groups equal rules/petname.rules.yaml",
          pr is not None and pr["spec"]["groups"] == rules["groups"])
    check("dashboard.enabled=false drops the ConfigMap", "ConfigMap" not in kinds(objs))


def test_pod_monitor():
    objs = render("podMonitor.enabled=true", "podMonitor.labels.release=kps")
    pm = objs.get(("PodMonitor", "rel-petname-operator-ranks"))
    check("podMonitor.enabled: a PodMonitor for the rank pods", pm is not None, str(kinds(objs)))
    if pm is None:
        return
    spec = pm["spec"]
    check("PodMonitor selects the rank pods of every job, not the operator",
          spec["selector"] == {"matchLabels": {"app.kubernetes.io/name": "petname"},
                               "matchExpressions": [{"key": "petname.dev/job-name",
                                                     "operator": "Exists"}]}, str(spec["selector"]))
    check("PodMonitor: jobs in all namespaces with scope cluster",
          spec["namespaceSelector"] == {"any": True}, str(spec["namespaceSelector"]))
    check("PodMonitor carries the extra label", pm["metadata"]["labels"]["release"] == "kps")
    endpoints = spec["podMetricsEndpoints"]
    ep = endpoints[0]
    check("PodMonitor: one endpoint, /metrics, honorLabels, no port (every container port)",
          len(endpoints) == 1 and ep["path"] == "/metrics" and ep["honorLabels"] is True
          and not {"port", "portNumber", "targetPort"} & set(ep), json.dumps(ep))
    keep = [r for r in ep.get("relabelings", []) if r.get("action") == "keep"
            and r.get("sourceLabels") == ["__meta_kubernetes_pod_container_port_name"]]
    # Prometheus anchors relabeling regexes: a full match keeps the target.
    kept = {name for name in ["metrics", "metrics-1", "metrics-63", "rendezvous", "metrics-",
                              "metricsx", "http-metrics"]
            if keep and re.fullmatch(keep[0]["regex"], name)}
    check("PodMonitor keeps the ports metrics and metrics-<k> only",
          len(keep) == 1 and kept == {"metrics", "metrics-1", "metrics-63"}, str(kept))
    objs = render("podMonitor.enabled=true", "scope=namespace", "watchNamespace=team-a")
    check("PodMonitor with scope namespace: the watched namespace",
          objs[("PodMonitor", "rel-petname-operator-ranks")]["spec"]["namespaceSelector"]
          == {"matchNames": ["team-a"]})
    objs = render("podMonitor.enabled=true", "podMonitor.namespaces={ml,research}")
    check("PodMonitor with podMonitor.namespaces: those",
          objs[("PodMonitor", "rel-petname-operator-ranks")]["spec"]["namespaceSelector"]
          == {"matchNames": ["ml", "research"]})


def test_helm_test_hook():
    objs = render("image.tag=1.2.3", "healthPort=9091", "imagePullSecrets[0].name=regcred")
    pod = objs.get(("Pod", "rel-petname-operator-test"))
    check("helm test hook: a Pod rel-petname-operator-test", pod is not None, str(kinds(objs)))
    if pod is None:
        return
    notes = pod["metadata"]["annotations"]
    check("helm test hook: annotated helm.sh/hook test, deleted when it passed",
          notes.get("helm.sh/hook") == "test"
          and "hook-succeeded" in notes.get("helm.sh/hook-delete-policy", ""), str(notes))
    spec = pod["spec"]
    c = spec["containers"][0]
    dep_c = container(objs)
    check("helm test hook: the operator's image and pull policy",
          c["image"] == dep_c["image"] == "localhost/petname-operator:1.2.3"
          and c["imagePullPolicy"] == dep_c["imagePullPolicy"], c["image"])
    check("helm test hook: runs once, no API token, the chart's pull secrets",
          spec["restartPolicy"] == "Never" and spec["automountServiceAccountToken"] is False
          and spec["imagePullSecrets"] == [{"name": "regcred"}])
    psc, sc = spec["securityContext"], c["securityContext"]
    check("helm test hook: non-root, seccomp RuntimeDefault",
          psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) > 0
          and psc.get("seccompProfile", {}).get("type") == "RuntimeDefault")
    check("helm test hook: read-only root fs, no escalation, no capabilities",
          sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False
          and sc.get("capabilities", {}).get("drop") == ["ALL"])
    check("helm test hook: small requests and limits",
          set(c["resources"]) == {"requests", "limits"})
    script = " ".join(c["command"] + c["args"])
    check("helm test hook: GETs /healthz and /readyz from the Service's health port",
          c["command"][:1] == ["/bin/bash"]
          and "/dev/tcp/$host/9091" in script and "/healthz /readyz" in script
          and "host=rel-petname-operator-metrics.petname-system.svc" in script, script[:300])
    svc = objs[("Service", "rel-petname-operator-metrics")]
    check("helm test hook: the Service exposes healthPort as health",
          {"name": "health", "port": 9091, "targetPort": "health", "protocol": "TCP"}
          in svc["spec"]["ports"])
    r = helm("template", "rel", str(CHART), "--skip-tests")
    check("helm template --skip-tests leaves the hook out",
          r.returncode == 0 and "rel-petname-operator-test" not in r.stdout)
    # The CRDs' validation rules carry reason and fieldPath (Kubernetes 1.28) and pod templates
    # may hold native sidecars (1.29, examples/template-job.yaml): the chart says 1.29.
    old = helm("template", "rel", str(CHART), "--kube-version", "1.28.15")
    new = helm("template", "rel", str(CHART), "--kube-version", "1.29.0")
    check("kubeVersion: refused on Kubernetes 1.28, rendered on 1.29",
          old.returncode != 0 and "kubeVersion" in old.stderr and new.returncode == 0,
          (old.stderr + new.stderr).strip()[-300:])


def value_paths(schema, prefix=""):
    """The values values.schema.json names: objects with properties are walked, the rest are
    leaves (free-form objects such as resources count as one value)."""
    for key, sub in schema.get("properties", {}).items():
        if "properties" in sub:
            yield from value_paths(sub, prefix + key + ".")
        else:
            yield prefix + key


def literal(value):
    """A values.yaml default as docs/reference/helm-values.md writes it."""
    if isinstance(value, bool):
        return str(value).lower()
    if value == "":
        return '""'
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def test_readme_values():
    schema = json.loads((CHART / "values.schema.json").read_text())
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    rows = dict(re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", VALUES_DOC.read_text(), re.M))
    want = set(value_paths(schema))
    check("helm-values.md values table lists every value", want <= set(rows), str(sorted(want - set(rows))))
    check("helm-values.md values table lists only values the chart has", set(rows) <= want,
          str(sorted(set(rows) - want)))
    wrong = []
    for path, default in rows.items():
        m = re.fullmatch(r"`([^`]*)`", default.strip())
        if not m or path not in want:
            continue  # described in words
        value = values
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if literal(value) != m.group(1):
            wrong.append(f"{path}: helm-values.md {m.group(1)}, values.yaml {literal(value)}")
    check("helm-values.md defaults equal values.yaml", not wrong, "; ".join(wrong))


def test_schema_rejects():
    for bad in ["scope=everywhere", "replicas=-1", "operator.logLevel=loud", "operator.workers=0",
                "image.pullPolicy=Sometimes", "unknownKey=1", "operator.maxPodsPerSweep=0", "serviceMonitor.interval=soon",
                "podMonitor.interval=soon", "kueue.enabled=maybe", "kueue.queue=x"]:
        r = helm("template", "rel", str(CHART), "--set", bad)
        check(f"schema rejects {bad}", r.returncode != 0 and "rel" not in r.stdout, r.stdout[:200])


def metrics_from_arg(peers):
    return "--network-policy-metrics-from=" + json.dumps(peers, separators=(",", ":"),
                                                         sort_keys=True)


def test_network_policy():
    selector = {"app.kubernetes.io/name": "petname-operator", "app.kubernetes.io/instance": "rel"}
    health_rule = {"from": [{"podSelector": {"matchLabels": {
        **selector, "app.kubernetes.io/component": "test"}}}],
        "ports": [{"protocol": "TCP", "port": 8081}]}
    objs = render()
    np = objs.get(("NetworkPolicy", "rel-petname-operator"))
    check("networkPolicy: the operator's own NetworkPolicy by default, on its pods, Ingress only",
          np is not None and np["spec"]["podSelector"] == {"matchLabels": selector}
          and np["spec"]["policyTypes"] == ["Ingress"])
    rules = np["spec"]["ingress"] if np else []
    check("networkPolicy: metrics port from the release namespace's Prometheus only, health "
          "from the test pod", rules == [
              {"from": [METRICS_FROM[1]], "ports": [{"protocol": "TCP", "port": 8080}]},
              health_rule], json.dumps(rules))
    check("networkPolicy: no peer selects every namespace",
          not [p for p in METRICS_FROM if p.get("namespaceSelector") == {}]
          and "namespaceSelector\":{}" not in json.dumps(container(objs)["args"]))
    test_pod = objs[("Pod", "rel-petname-operator-test")]
    check("networkPolicy: the test pod carries the admitted labels",
          test_pod["metadata"]["labels"].get("app.kubernetes.io/component") == "test")

    objs = render("networkPolicy.prometheus.namespace=monitoring",
                  "networkPolicy.prometheus.podLabels.app=prom")
    want = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
            "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus",
                                            "app": "prom"}}}
    np = objs[("NetworkPolicy", "rel-petname-operator")]
    check("networkPolicy.prometheus.namespace: both policies admit that namespace's Prometheus",
          metrics_from_arg([METRICS_FROM[0], want]) in container(objs)["args"]
          and np["spec"]["ingress"][0]["from"] == [want],
          str(container(objs)["args"]) + json.dumps(np["spec"]["ingress"]))

    objs = render("networkPolicy.prometheus.enabled=false")
    np = objs[("NetworkPolicy", "rel-petname-operator")]
    check("networkPolicy.prometheus.enabled=false: only the operator's pods reach the metrics "
          "ports, and nothing the operator's", metrics_from_arg(METRICS_FROM[:1])
          in container(objs)["args"] and np["spec"]["ingress"] == [health_rule],
          json.dumps(np["spec"]["ingress"]))

    objs = render("networkPolicy.operator.enabled=false")
    check("networkPolicy.operator.enabled=false: no NetworkPolicy of the operator's own",
          "NetworkPolicy" not in kinds(objs))

    objs = render("networkPolicy.jobs.enabled=false")
    role = objs[("ClusterRole", "rel-petname-operator")]
    check("networkPolicy.jobs.enabled=false: no networkpolicies rule",
          role["rules"] == OPERATOR_RULES[:-1], json.dumps(role["rules"]))
    args = container(objs)["args"]
    check("networkPolicy.jobs.enabled=false: --no-network-policy",
          "--no-network-policy" in args and not [a for a in args if "metrics-from" in a], str(args))

    for old in ["networkPolicy.jobs.prometheus.podSelector.x=y",
                "networkPolicy.operator.metricsFrom=null", "networkPolicy.prometheus.podLabels=null"]:
        r = helm("template", "rel", str(CHART), "--set", old)
        check(f"schema rejects {old}", r.returncode != 0, r.stdout[:200])


def test_service_account_off():
    objs = render("serviceAccount.create=false", "serviceAccount.name=existing", "rbac.create=false")
    check("serviceAccount.create=false, rbac.create=false: Deployment, Service, ConfigMap, "
          "NetworkPolicy, test",
          kinds(objs) == ["ConfigMap", "Deployment", "NetworkPolicy", "Pod", "Service"],
          str(kinds(objs)))
    pod = objs[("Deployment", "rel-petname-operator")]["spec"]["template"]["spec"]
    check("existing ServiceAccount used", pod["serviceAccountName"] == "existing")


# The command deploy/registry/kustomization.yaml documents for naming a registry, once, for both of
# its files (the trainer images of the examples, values.yaml the operator's), with a registry that
# has a port and a path.
REGISTRY = "registry.test:5000/ml/petname"
SET_REGISTRY = f"sed -i 's|registry.example.com|{REGISTRY}|' deploy/registry/*.yaml"


def image_fields(node):
    """Every string under a key `image` in a parsed object, at any depth."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "image" and isinstance(v, str):
                yield v
            else:
                yield from image_fields(v)
    elif isinstance(node, list):
        for v in node:
            yield from image_fields(v)


def kustomize(path):
    r = subprocess.run([KUBECTL, "kustomize", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {path}: {r.stderr.strip()}")
    return r.stdout


def registry_verdict(text):
    """(images, outside): the rendered text's image fields, those not under REGISTRY/ plus any
    localhost/ left anywhere in it (a comment, an argument)."""
    images = [i for o in yaml.safe_load_all(text) if o for i in image_fields(o)]
    outside = [i for i in images if not i.startswith(REGISTRY + "/")]
    outside += [f"text: {m}" for m in re.findall(r"\S*localhost/\S*", text)]
    return images, outside


def test_registry_once():
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="petname-registry."))
    atexit.register(shutil.rmtree, tmp, True)
    shutil.copytree(ROOT / "examples", tmp / "examples")
    shutil.copytree(ROOT / "deploy", tmp / "deploy")
    subprocess.run(["bash", "-c", SET_REGISTRY], cwd=tmp, check=True)
    # The chart with values.yaml: the operator's Deployment and the `helm test` Pod.
    r = helm("template", "rel", str(CHART), "-f", str(tmp / "deploy/registry/values.yaml"))
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    images, outside = registry_verdict(r.stdout)
    check(f"deploy/registry, set once: the chart's images under {REGISTRY} ({len(images)})",
          len(images) == 2 and not outside, f"{images}, outside: {outside}")
    # `kubectl apply -k deploy/registry`: the quick start's objects (examples/kustomization.yaml).
    images, outside = registry_verdict(kustomize(tmp / "deploy/registry"))
    check(f"deploy/registry, set once: the quick start's images under {REGISTRY} ({len(images)})",
          len(images) >= 2 and not outside, f"{images}, outside: {outside}")
    # Every example listed in examples/kustomization.yaml: every image field of every kind (jobs'
    # and sweeps' spec.image, pods' containers, the pod template's sidecar) is rewritten.
    files = sorted(p.name for p in (ROOT / "examples").glob("*.yaml")
                   if p.name != "kustomization.yaml")
    kust = tmp / "examples/kustomization.yaml"
    doc = yaml.safe_load(kust.read_text())
    doc["resources"] = files
    kust.write_text(yaml.safe_dump(doc))
    images, outside = registry_verdict(kustomize(tmp / "deploy/registry"))
    written = sum(len(re.findall(r"^\s*(?:- )?image: ", (ROOT / "examples" / f).read_text(), re.M))
                  for f in files)
    check(f"deploy/registry, set once: every image field of every example under {REGISTRY} "
          f"({len(images)} of {written} in {len(files)} files)",
          len(images) == written and not outside, f"{images}, outside: {outside}")


checks_plan(88)
for test in [test_lint_and_crds, test_defaults, test_namespace_scope, test_leader_election,
             test_kueue, test_monitoring, test_pod_monitor, test_helm_test_hook, test_readme_values,
             test_schema_rejects, test_network_policy, test_service_account_off,
             test_registry_once]:
    try:
        test()
    except Exception as e:  # a rendering failure is one failed check, not a crash
        check(test.__name__, False, str(e))
if not failed and passed < planned:
    check(f"{passed} checks ran, {planned} planned", False)
print(f"{passed} passed, {failed} failed")
finished = True
sys.exit(1 if failed else 0)
