#!/usr/bin/env python3
"""Lists the tests a ctest run skipped, from its JUnit file (`ctest --output-junit FILE`).

    tests/lib/ctest_skips.py [--gate] [--allow FILE] LABEL JUNIT

Prints one `skipped: LABEL: TEST: REASON` line per skipped test (REASON: the GTEST_SKIP message or
the script's `SKIP:` line), then `LABEL: N skipped`. With --gate (the full tier) it exits 1 when a
skip is not in the allow-list FILE, whose lines are `LABEL TEST REASON...` (`#` starts a comment):
each names one skip that is legitimate on the CI machine and says why. Exit 2 on a missing or
unreadable JUnit file or a malformed allow-list line.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET


def skip_reason(output):
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines) and not lines[i + 1].startswith("["):
            return lines[i + 1]
    for line in reversed(lines):
        if re.match(r"(?i)^(SKIP:|skipped[: ])", line) or "skipped" in line.lower():
            return line
    return lines[-1] if lines else "(no output)"


def read_allow_list(path):
    allowed = {}
    if not path:
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit(f"ctest_skips: {path}:{number}: expected 'LABEL TEST REASON', got '{line}'")
            allowed[(parts[0], parts[1])] = parts[2]
    return allowed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gate", action="store_true", help="fail on a skip not in the allow-list")
    parser.add_argument("--allow", help="allow-list file")
    parser.add_argument("label", help="the run's name in the output, e.g. build-torch2")
    parser.add_argument("junit", help="ctest's --output-junit file")
    args = parser.parse_args()
    try:
        root = ET.parse(args.junit).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"ctest_skips: cannot read {args.junit}: {e}", file=sys.stderr)
        return 2
    allowed = read_allow_list(args.allow)
    skipped, refused = 0, 0
    for case in root.iter("testcase"):
        if case.find("skipped") is None:
            continue
        name = case.get("name", "?")
        skipped += 1
        reason = skip_reason(case.findtext("system-out") or "")
        verdict = ""
        if args.gate:
            if (args.label, name) in allowed:
                verdict = f" (allowed: {allowed[(args.label, name)]})"
            else:
                refused += 1
                verdict = " (not in the allow-list: fails the gate)"
        print(f"skipped: {args.label}: {name}: {reason}{verdict}")
    print(f"{args.label}: {skipped} skipped" + (f", {refused} not allowed" if args.gate else ""))
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
