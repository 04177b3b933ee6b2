#!/usr/bin/env python3
"""The size rules of the product's C++ (trainer/, operator/, common/;
docs/contributing/code-layout.md):

  - a room (a source file and its header: X.cc + X.h, or a lone file) has at most 400 lines;
  - a function has at most 80 lines, as lizard (a pinned PyPI package, scripts/setup) measures
    its length: from the line of its name to its closing brace.

Prints each room or function over its limit and exits 1; else one line with the largest room and
the longest function measured, so that a green run shows what it read. Run with the Python of
the venv scripts/setup makes (it holds lizard):  ~/.cache/petname/venv/bin/python3 tests/lint/sizes.py
"""
import pathlib
import sys

import lizard

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("trainer", "operator", "common")
MAX_ROOM_LINES = 400
MAX_FUNCTION_LINES = 80


def sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".h", ".cc", ".cu") and path.is_file():
                yield path


def line_count(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def main():
    paths = list(sources())
    if not paths:
        print(f"sizes: no sources found under {', '.join(FOLDERS)} of {ROOT}", file=sys.stderr)
        return 1
    rooms = {}
    for path in paths:
        rooms.setdefault(path.with_suffix(""), []).append(path)
    failures = []
    largest = (0, "")
    for stem, files in sorted(rooms.items()):
        lines = sum(line_count(p) for p in files)
        name = " + ".join(str(p.relative_to(ROOT)) for p in files)
        largest = max(largest, (lines, name))
        if lines > MAX_ROOM_LINES:
            failures.append(f"room {name}: {lines} lines (at most {MAX_ROOM_LINES})")
    longest = (0, "")
    functions = 0
    for path in paths:
        for fn in lizard.analyze_file(str(path)).function_list:
            functions += 1
            where = f"{path.relative_to(ROOT)}:{fn.start_line} {fn.name}"
            longest = max(longest, (fn.length, where))
            if fn.length > MAX_FUNCTION_LINES:
                failures.append(f"function {where}: {fn.length} lines (at most {MAX_FUNCTION_LINES})")
    for failure in failures:
        print(f"sizes: {failure}", file=sys.stderr)
    if failures:
        print(f"sizes: {len(failures)} over the limits; split by concept "
              "(docs/contributing/code-layout.md)", file=sys.stderr)
        return 1
    print(f"sizes: {len(rooms)} rooms, {functions} functions within the limits; the largest room "
          f"{largest[1]} ({largest[0]} lines), the longest function {longest[1]} "
          f"({longest[0]} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
