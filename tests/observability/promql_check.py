"""Runs every PromQL expression of the Grafana dashboard and the Prometheus rules against a
real Prometheus and fails unless each evaluates without error and returns data.

  promql_check.py wait  URL --world N --rules F [--timeout S]
                                          waits until a run (and every recorded series) is
                                          visible, prints the evaluation time
  promql_check.py check URL --time T --dashboard F --rules F --expect F --var k=v ...
  promql_check.py alert URL NAME [--timeout S]         waits until alert NAME is pending or
                                                       firing in Prometheus

Grafana variables are substituted as Grafana would ($__rate_interval, $namespace, ...);
`label_values(selector, label)` variable queries run as `group by (label) (selector)`.
Alert expressions are conditions, empty on a healthy run: they must evaluate without error
here; their firing is tested by promtool (petname.rules.test.yaml) and, for
PetnameRankTargetDown, by the `alert` step after the run is stopped.
Every expression that reads a DCGM_ series must have an entry in the --expect JSON file
(keyed like the output, e.g. `panel "GPU utilization (DCGM)" A`): the exact series it
returns, as their labels, and their values; every entry must name an expression.
"""
import argparse
import json
import math
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml


def query(url, expr, at=None):
    params = {"query": expr}
    if at is not None:
        params["time"] = repr(at)
    data = urllib.parse.urlencode(params).encode()
    try:
        with urllib.request.urlopen(url + "/api/v1/query", data=data, timeout=10) as response:
            body = json.load(response)
    except urllib.error.HTTPError as e:
        try:
            body = json.load(e)
        except ValueError:  # not an API answer (e.g. 503 while the TSDB is still starting)
            raise e from None
    if body.get("status") != "success":
        raise ValueError(body.get("error", "unknown error"))
    return body["data"]


def has_data(result):
    if result["resultType"] in ("vector", "matrix"):
        return len(result["result"]) > 0
    return True  # scalar or string


def ready_queries(world, rules_path):
    with open(rules_path) as f:
        recorded = [r["record"] for g in yaml.safe_load(f)["groups"] for r in g["rules"]
                    if "record" in r]
    return recorded + [
        f'count(up{{job="pets"}} == 1) == {world}',
        f'count(rate(petname_train_samples_total[10s]) > 0) == {world}',
        # Served from the start as NaN (no value yet): wait for the events' real values.
        "petname_validation_loss >= 0",
        "petname_train_elapsed_seconds > 0",
        "petname_goal_reached_training_seconds >= 0",
        "petname_checkpoint_last_success_timestamp_seconds > 0",
        "petname_training_info",
        "process_cpu_seconds_total",
        "DCGM_FI_DEV_GPU_UTIL",
        "petname_gpu_memory_allocated_bytes",
    ]


def wait(args):
    deadline = time.time() + args.timeout
    missing = []
    while time.time() < deadline:
        now = time.time()
        try:
            missing = [q for q in ready_queries(args.world, args.rules)
                       if not has_data(query(args.url, q, now))]
        except urllib.error.URLError:  # Prometheus is still starting
            missing = ["prometheus"]
        if not missing:
            print(f"{now:.3f}")
            return 0
        time.sleep(1)
    print(f"promql_check: run not visible after {args.timeout}s; no data for: {missing}",
          file=sys.stderr)
    return 1


def substitute(expr, variables):
    for name in sorted(variables, key=len, reverse=True):
        expr = expr.replace("${" + name + "}", variables[name]).replace("$" + name, variables[name])
    return expr


def dashboard_expressions(path):
    with open(path) as f:
        dashboard = json.load(f)
    out = []
    panels = []
    for panel in dashboard.get("panels", []):
        panels.append(panel)
        panels.extend(panel.get("panels", []))
    for panel in panels:
        for target in panel.get("targets", []):
            out.append((f'panel "{panel["title"]}" {target["refId"]}', target["expr"], "data"))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        text = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", text.strip(), re.S)
        if not m:
            raise ValueError(f"variable {variable['name']}: unsupported query {text}")
        out.append((f'variable "{variable["name"]}"', f"group by ({m[2]}) ({m[1]})", "data"))
    return out


def rule_expressions(path):
    with open(path) as f:
        rules = yaml.safe_load(f)
    out = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            if "record" in rule:
                out.append((f'record {rule["record"]}', rule["expr"], "data"))
                out.append((f'recorded {rule["record"]}', rule["record"], "data"))
            else:
                out.append((f'alert {rule["alert"]}', rule["expr"], "valid"))
    return out


def series_of(result):
    return {json.dumps(s["metric"], sort_keys=True): float(s["value"][1])
            for s in result["result"]}


def unexpected(result, want):
    """What differs between a vector result and its expected series, or None."""
    got = series_of(result)
    wanted = {json.dumps(w["labels"], sort_keys=True): float(w["value"]) for w in want}
    if got.keys() != wanted.keys():
        return f"series {sorted(got)}, want {sorted(wanted)}"
    wrong = [f"{k}: {got[k]} (want {v})" for k, v in wanted.items()
             if not math.isclose(got[k], v, rel_tol=1e-9, abs_tol=1e-12)]
    return "values " + "; ".join(wrong) if wrong else None


def check(args):
    variables = dict(v.split("=", 1) for v in args.var)
    expressions = dashboard_expressions(args.dashboard) + rule_expressions(args.rules)
    with open(args.expect) as f:
        expected = {k: v for k, v in json.load(f).items() if k != "_"}
    failures = 0
    for where in sorted(set(expected) - {where for where, _, _ in expressions}):
        print(f"FAIL {where}: expected in {args.expect} but no such expression")
        failures += 1
    for where, expr, need in expressions:
        expr = substitute(expr, variables)
        try:
            result = query(args.url, expr, args.time)
        except ValueError as e:
            print(f"FAIL {where}: error: {e}\n     {expr}")
            failures += 1
            continue
        series = len(result["result"]) if result["resultType"] in ("vector", "matrix") else 1
        problem = None
        if need == "data" and not has_data(result):
            problem = "returned no data"
        elif "DCGM_" in expr and where not in expected:
            problem = f"reads DCGM series but {args.expect} has no entry for it"
        elif where in expected:
            problem = unexpected(result, expected[where])
        if problem:
            print(f"FAIL {where}: {problem}\n     {expr}")
            failures += 1
        else:
            print(f"ok   {where}: {series} series" + ("" if need == "data" else " (condition)"))
    print(f"promql_check: {len(expressions) - failures}/{len(expressions)} expressions passed")
    return 1 if failures else 0


def alert(args):
    deadline = time.time() + args.timeout
    while time.time() < deadline:
        with urllib.request.urlopen(args.url + "/api/v1/alerts", timeout=10) as response:
            alerts = json.load(response)["data"]["alerts"]
        active = [a for a in alerts if a["labels"].get("alertname") == args.name]
        if active:
            for a in active:
                print(f"ok   alert {args.name} {a['state']}: {a['labels']}")
            return 0
        time.sleep(1)
    print(f"promql_check: alert {args.name} not active after {args.timeout}s", file=sys.stderr)
    return 1


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("wait")
    w.add_argument("url")
    w.add_argument("--world", type=int, required=True)
    w.add_argument("--rules", required=True)
    w.add_argument("--timeout", type=float, default=180)
    c = sub.add_parser("check")
    c.add_argument("url")
    c.add_argument("--time", type=float, required=True)
    c.add_argument("--dashboard", required=True)
    c.add_argument("--rules", required=True)
    c.add_argument("--expect", required=True)
    c.add_argument("--var", action="append", default=[])
    a = sub.add_parser("alert")
    a.add_argument("url")
    a.add_argument("name")
    a.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    return {"wait": wait, "check": check, "alert": alert}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
