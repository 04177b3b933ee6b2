#!/usr/bin/env bash
# The Katib Experiment of docs/tasks/katib.md against a REAL kube-apiserver with the CRDs:
# its ConfigMap trial template, with each ${trialParameters.X} replaced as Katib does (as text) by
# a value of the parameter it references, named as Katib names a Trial's job (the Experiment's
# name, '-', 8 characters), passes a server-side dry run; the same job with a parameter as a
# string (what an inline trialSpec's substitution makes of a number field) is refused.
#
#   tests/katib/trial_template_test.sh
#
# Starts its own control plane (tests/cluster/up.sh) and always stops it. Last line: `N passed, N failed`.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../cluster/env.sh
source "$ROOT/tests/cluster/env.sh"

DIR=$(mktemp -d "${TMPDIR:-/tmp}/petname-katib-test.XXXXXX")
CHECKS_LOG=$DIR/checks.log
# shellcheck source-path=SCRIPTDIR source=../lib/checks.sh
source "$ROOT/tests/lib/checks.sh"
finish() {
  local rc=$?
  "$ROOT/tests/cluster/down.sh" "$DIR" 2>/dev/null || true
  if ((rc == 0 && FAILED == 0)); then rm -rf "$DIR"; else echo "cluster dir kept: $DIR" >&2; fi
  checks_finish "$rc" && exit 0
  exit 1
}
trap finish EXIT
export PETNAME_CLUSTER_OWNER_PID=$$
trap 'exit 130' INT TERM
checks_plan 2

k() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" "$@"; }
result() { # NAME OK OUTPUT
  if (($2)); then ok "$1"; else not_ok "$1" && sed 's/^/    # /' <<<"$3"; fi
}

# The trial jobs Katib would create: the template with values (numbers as YAML text), then the
# same with the first parameter quoted.
python3 - "$ROOT/docs/tasks/katib.md" "$DIR" <<'PY'
import re, sys, yaml
section = open(sys.argv[1]).read()
docs = next(d for b in re.findall(r"```yaml\n(.*?)```", section, re.S)
            for d in [list(yaml.safe_load_all(b))] if any(x["kind"] == "Experiment" for x in d))
cm = next(d for d in docs if d["kind"] == "ConfigMap")
exp = next(d for d in docs if d["kind"] == "Experiment")
source = exp["spec"]["trialTemplate"]["configMap"]
assert source["configMapName"] == cm["metadata"]["name"], "the Experiment names another ConfigMap"
template = cm["data"][source["templatePath"]]
params = {p["name"]: p for p in exp["spec"]["parameters"]}
values = {}
for t in exp["spec"]["trialTemplate"]["trialParameters"]:
    space = params[t["reference"]]["feasibleSpace"]
    values[t["name"]] = space["list"][0] if "list" in space else space["min"]
name = exp["metadata"]["name"] + "-x7d9kq2m"
for out, quote in (("job.yaml", ""), ("job-string.yaml", '"')):
    text = template
    for i, (n, v) in enumerate(values.items()):
        q = quote if i == 0 else ""
        text = text.replace("${trialParameters.%s}" % n, q + v + q)
    job = yaml.safe_load(text)
    job["metadata"] = {"name": name, "namespace": "default"}
    open(f"{sys.argv[2]}/{out}", "w").write(yaml.safe_dump(job))
PY

setup "control plane (up.sh; logs in $DIR)" "$ROOT/tests/cluster/up.sh" "$DIR"
setup "the CRDs" k apply --server-side -f "$ROOT/crds/"
setup "the job CRD established" k wait --for condition=established --timeout 60s \
  crd/petnametrainingjobs.petname.dev

out=$(k apply --dry-run=server --validate=strict -f "$DIR/job.yaml" 2>&1) && ok=1 || ok=0
result "the documented trial template, values filled in as Katib does, is a valid job" "$ok" "$out"
out=$(k apply --dry-run=server --validate=strict -f "$DIR/job-string.yaml" 2>&1) && ok=0 || ok=1
[[ $out == *"must be of type number"* ]] || ok=0
result "a parameter substituted as a string (inline trialSpec) is refused" "$ok" "$out"
checks_done
