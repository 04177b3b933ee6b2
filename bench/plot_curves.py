#!/usr/bin/python3
"""Validation loss against wall-clock time as a standalone SVG (no plotting library needed).

  plot_curves.py --out FILE.svg [--target LOSS] "label=CURVE_FILE" ...

A curve file has one "seconds loss" pair per line. The target, if given, is drawn as a
dashed horizontal line.
"""
import argparse
import math
import sys
from xml.sax.saxutils import escape

COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 720, 420, 70, 20, 40, 50


def read_curve(path):
    points = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2:
                points.append((float(fields[0]), float(fields[1])))
    return points


def nice_step(span, count=5):
    """A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`."""
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def ticks(lo, hi):
    step = nice_step(hi - lo)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--target", type=float)
    p.add_argument("curves", nargs="+", help="label=path")
    args = p.parse_args()
    series = []
    for spec in args.curves:
        label, _, path = spec.rpartition("=")
        try:
            points = read_curve(path)
        except (OSError, ValueError) as e:
            print(f"plot_curves.py: cannot read {path}: {e}", file=sys.stderr)
            return 1
        if points:
            series.append((label or path, points))
    if not series:
        print("plot_curves.py: no points to plot", file=sys.stderr)
        return 1
    xs = [x for _, pts in series for x, _ in pts] + [0.0]
    ys = [y for _, pts in series for _, y in pts] + ([args.target] if args.target else [])
    x_hi, y_lo, y_hi = max(xs) * 1.05, min(ys) * 0.98, max(ys) * 1.02

    def px(x):
        return LEFT + (W - LEFT - RIGHT) * x / x_hi

    def py(y):
        return TOP + (H - TOP - BOTTOM) * (y_hi - y) / (y_hi - y_lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">'
           'Validation loss against wall-clock time</text>']
    for x in ticks(0, x_hi):
        out.append(f'<line x1="{px(x):.1f}" y1="{TOP}" x2="{px(x):.1f}" y2="{H - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{px(x):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{x:.0f}</text>')
    for y in ticks(y_lo, y_hi):
        out.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{W - RIGHT}" y2="{py(y):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
    out.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">seconds since launch</text>')
    out.append(f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" '
               'text-anchor="middle">validation loss</text>')
    if args.target:
        out.append(f'<line x1="{LEFT}" y1="{py(args.target):.1f}" x2="{W - RIGHT}" '
                   f'y2="{py(args.target):.1f}" stroke="#555" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{W - RIGHT - 4}" y="{py(args.target) - 5:.1f}" text-anchor="end">'
                   f'target {args.target:.4f}</text>')
    for k, (label, pts) in enumerate(series):
        color = COLORS[k % len(COLORS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
        # Legend in the lower left, where falling loss curves rarely are.
        top = H - BOTTOM - 10 - 18 * (len(series) - k)
        out.append(f'<rect x="{LEFT + 10}" y="{top}" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{LEFT + 28}" y="{top + 10}">{escape(label)}</text>')
    out.append("</svg>")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
