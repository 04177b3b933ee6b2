#!/usr/bin/env python3
"""Prints, as one bash script, the documented commands that the doc-test runs verbatim.

A runnable block is a fenced ```sh block right after a line `<!-- doc-test N -->` (N an integer);
the blocks of all FILEs run in the order of N (equal N: the order of FILEs, then of the text).
Each block is preceded by an echo naming FILE:LINE, so a failing command is easy to find in the
log. Errors (exit 2, one line): a marker not followed by a ```sh block, an unclosed block, two
blocks with the same N, no block at all.

  tests/e2e/doc_blocks.py [--from N] [--to N] README.md $(find docs -name '*.md' | sort) > quickstart.sh

--from/--to keep only the blocks with N in that range (inclusive), so a test can look at the
cluster between two documented steps.
"""
import re
import shlex
import sys

MARKER = re.compile(r"^<!-- doc-test (\d+) -->\s*$")


def blocks(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        order, start = int(m.group(1)), i + 1
        if start >= len(lines) or lines[start].strip() != "```sh":
            raise ValueError(f"{path}:{i + 1}: doc-test marker not followed by a ```sh block")
        end = start + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end >= len(lines):
            raise ValueError(f"{path}:{start + 1}: unclosed ```sh block")
        yield order, f"{path}:{start + 2}", lines[start + 1 : end]
        i = end + 1


def main(paths, low, high):
    found = []
    for index, path in enumerate(paths):
        for order, where, body in blocks(path):
            found.append((order, index, where, body))
    found.sort(key=lambda b: (b[0], b[1]))
    seen = {}
    for order, _, where, _ in found:
        if order in seen:
            raise ValueError(f"{where}: doc-test {order} also at {seen[order]}")
        seen[order] = where
    found = [b for b in found if low <= b[0] <= high]
    if not found:
        raise ValueError(f"no doc-test block from {low} to {high} in {' '.join(paths)}")
    out = ["set -euo pipefail"]
    for order, _, where, body in found:
        out.append(f"echo {shlex.quote(f'[doc-test {order}] {where}')} >&2")
        out.extend(body)
    print("\n".join(out))


def parse(argv):
    low, high, paths = 0, sys.maxsize, []
    while argv:
        arg = argv.pop(0)
        if arg in ("--from", "--to"):
            if not argv or not argv[0].isdigit():
                raise ValueError(f"{arg} needs a number")
            value = int(argv.pop(0))
            low, high = (value, high) if arg == "--from" else (low, value)
        else:
            paths.append(arg)
    if not paths:
        raise ValueError("usage: doc_blocks.py [--from N] [--to N] FILE.md...")
    return paths, low, high


if __name__ == "__main__":
    try:
        main(*parse(sys.argv[1:]))
    except (OSError, ValueError) as e:
        print(f"doc_blocks.py: {e}", file=sys.stderr)
        sys.exit(2)
