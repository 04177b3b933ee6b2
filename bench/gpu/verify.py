#!/usr/bin/env python3
"""The assertions of bench/gpu/check.sh, one subcommand each. Each prints one line saying what
it compared and exits 0 when the check holds, 1 (with the reason on that line) when it does not,
2 on unusable input.

  verify.py trace A.json B.json --tol T [--tail]
      the train and validation loss traces of two --summary-json files agree within T
      (absolute, every epoch); --tail compares B with the last epochs of A (a resumed run's
      summary holds only the epochs it trained, and the train loss of its first epoch only the
      steps after the resume, so that one is not compared)
  verify.py midway CHECKPOINT_DIR TOTAL_STEPS
      the newest checkpoint (DIR/latest) was saved mid-training: 0 < its step < TOTAL_STEPS
  verify.py device-step LOG STEPS --device cuda|cpu
      the trainer's "device step:" line (stderr) says STEPS steps ran without an eager one;
      on cuda, all in CUDA graphs captured before training. On the CPU the line is printed
      only when a batch ran eagerly, so its absence means 0 eager batches.
  verify.py spread A.json B.json
      reports the largest difference between the loss traces of two runs (always exit 0 when
      both are readable and have the same epochs): how far apart two runs of the same settings
      land
  verify.py metrics BODY_FILE NAME... [--label K=V]... [--first]
      a Prometheus text exposition has a sample of every NAME, petname_train_steps_total > 0
      (with --first: any value, the exposition may come from before the first step), and
      petname_training_info carries every label K="V"
"""
import argparse
import json
import os
import re
import sys


class Failed(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Failed("cannot read %s: %s" % (path, e))


def trace(args):
    a, b = load_json(args.a), load_json(args.b)
    worst = 0.0
    for key in ("train_loss_trace", "val_loss_trace"):
        ta, tb = a.get(key) or [], b.get(key) or []
        if args.tail:
            ta = ta[len(ta) - len(tb):] if len(tb) <= len(ta) else ta
            if key == "train_loss_trace":
                ta, tb = ta[1:], tb[1:]
        if len(ta) != len(tb) or not b.get(key):
            raise Failed("%s has %d epochs in %s, %d in %s" % (key, len(ta), args.a, len(tb), args.b))
        for epoch, (x, y) in enumerate(zip(ta, tb), 1):
            worst = max(worst, abs(x - y))
            if abs(x - y) > args.tol:
                raise Failed("%s epoch %d: %.6f vs %.6f differ by %.2e > %.0e"
                             % (key, epoch, x, y, abs(x - y), args.tol))
    return "loss traces agree within %.0e (largest difference %.2e)" % (args.tol, worst)


def spread(args):
    a, b = load_json(args.a), load_json(args.b)
    worst, where = 0.0, "none"
    for key in ("train_loss_trace", "val_loss_trace"):
        ta, tb = a.get(key) or [], b.get(key) or []
        if len(ta) != len(tb) or not ta:
            raise Failed("%s has %d epochs in %s, %d in %s" % (key, len(ta), args.a, len(tb), args.b))
        for epoch, (x, y) in enumerate(zip(ta, tb), 1):
            if abs(x - y) > worst:
                worst, where = abs(x - y), "%s epoch %d" % (key, epoch)
    return "two runs of the same settings differ by up to %.2e (%s)" % (worst, where)


def midway(args):
    try:
        with open(os.path.join(args.dir, "latest")) as f:
            latest = f.read().strip()
    except OSError as e:
        raise Failed("no checkpoint written: %s" % e)
    step = load_json(os.path.join(args.dir, latest, "manifest.json")).get("step", -1)
    if not 0 < step < args.total:
        raise Failed("checkpoint %s at step %d, not strictly between 0 and %d"
                     % (latest, step, args.total))
    return "stopped mid-training: checkpoint %s at step %d of %d" % (latest, step, args.total)


DEVICE_STEP = re.compile(r"device step: (\d+) steps (in CUDA graphs|with fixed shapes)"
                         r"(?: \(captured before training in ([0-9.]+) s\))?"
                         r"(?:, (\d+) eager)?")


def device_step(args):
    try:
        with open(args.log, errors="replace") as f:
            lines = [l for l in f if "device step:" in l]
    except OSError as e:
        raise Failed("cannot read %s: %s" % (args.log, e))
    if not lines:
        if args.device == "cuda":
            raise Failed("no 'device step:' line in %s" % args.log)
        return "no 'device step:' line on the CPU: 0 eager batches"
    m = DEVICE_STEP.search(lines[-1])
    if not m:
        raise Failed("unreadable line: %s" % lines[-1].strip())
    graphed, kind, capture_s, eager = int(m[1]), m[2], m[3], int(m[4] or 0)
    if eager != 0:
        raise Failed("%d eager batches (want 0): %s" % (eager, lines[-1].strip()))
    if args.device == "cuda":
        if kind != "in CUDA graphs" or capture_s is None or float(capture_s) <= 0:
            raise Failed("graphs not captured before training: %s" % lines[-1].strip())
    if graphed != args.steps:
        raise Failed("%d of %d steps ran with fixed shapes: %s" % (graphed, args.steps, lines[-1].strip()))
    return "device step: %d of %d steps %s, 0 eager" % (graphed, args.steps, kind)


SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def metrics(args):
    try:
        with open(args.body, errors="replace") as f:
            samples = [m.groups() for m in map(SAMPLE.match, f) if m]
    except OSError as e:
        raise Failed("cannot read %s: %s" % (args.body, e))
    names = {name for name, _, _ in samples}
    missing = [n for n in args.names if n not in names]
    if missing:
        raise Failed("not served: %s" % " ".join(missing))
    steps = [float(v) for n, _, v in samples if n == "petname_train_steps_total"]
    if not steps:
        raise Failed("petname_train_steps_total is not served")
    if not args.first and max(steps) <= 0:
        raise Failed("petname_train_steps_total is not above 0: training had not started")
    info = [labels or "" for n, labels, _ in samples if n == "petname_training_info"]
    for kv in args.label:
        key, _, value = kv.partition("=")
        if not any('%s="%s"' % (key, value) in labels for labels in info):
            raise Failed('petname_training_info has no %s="%s": %s' % (key, value, " ".join(info)))
    return "%d metric names served, including %s" % (len(names), " ".join(args.names))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trace")
    t.add_argument("a")
    t.add_argument("b")
    t.add_argument("--tol", type=float, required=True)
    t.add_argument("--tail", action="store_true")
    t.set_defaults(run=trace)
    r = sub.add_parser("spread")
    r.add_argument("a")
    r.add_argument("b")
    r.set_defaults(run=spread)
    m = sub.add_parser("midway")
    m.add_argument("dir")
    m.add_argument("total", type=int)
    m.set_defaults(run=midway)
    d = sub.add_parser("device-step")
    d.add_argument("log")
    d.add_argument("steps", type=int)
    d.add_argument("--device", choices=["cuda", "cpu"], required=True)
    d.set_defaults(run=device_step)
    s = sub.add_parser("metrics")
    s.add_argument("body")
    s.add_argument("names", nargs="+")
    s.add_argument("--label", action="append", default=[])
    s.add_argument("--first", action="store_true")
    s.set_defaults(run=metrics)
    args = p.parse_args()
    try:
        print(args.run(args))
    except Failed as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
