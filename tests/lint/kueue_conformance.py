#!/usr/bin/env python3
"""Keeps the Kueue conformance suite and the two tables that describe it in step
(ctest lint.kueue_conformance; `python3 tests/lint/kueue_conformance.py`, exit 1 on a finding).

- The suite: tests/operator/integration/kueue_conformance_test.sh. Its scenarios are the IDs KCnn
  that begin the names of its checks (`check "KCnn ..."`, or `need "KCnn ..."` for one that ends
  its scenario when it fails).
- docs/contributing/testing.md, section "## Kueue conformance": a table | Kueue's case | scenario | result |.
  Every scenario of the suite has a row; every KCnn a row names is one of the suite's; a row that
  names no scenario ("—") has a result that starts with "difference:" or "not ported:" and gives a
  reason; a row that names one has a result that starts with "pass" or "difference:".
- docs/tasks/kueue.md, section "## What is supported": a table
  | Kueue | PetNameTrainingJob | scenarios |. Its second column starts with "yes", "partly" or
  "no"; a "yes" or "partly" row names at least one scenario; every KCnn it names is one of the
  suite's, and every scenario of the suite is named by some row, so that the table of what is
  supported is checked against what the suite runs.
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUITE = os.path.join(ROOT, "tests", "operator", "integration", "kueue_conformance_test.sh")
TESTING = os.path.join(ROOT, "docs", "contributing", "testing.md")
GUIDE = os.path.join(ROOT, "docs", "tasks", "kueue.md")
ID = re.compile(r"\bKC\d\d\b")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def section(text, heading, path, findings):
    """The lines of the section that starts with the line `heading`, up to the next heading of the
    same or a higher level."""
    lines = text.splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    for i, line in enumerate(lines):
        if line.strip() == heading:
            out = []
            for rest in lines[i + 1:]:
                m = re.match(r"^(#+) ", rest)
                if m and len(m.group(1)) <= level:
                    break
                out.append(rest)
            return out
    findings.append(f"{os.path.relpath(path, ROOT)}: no section '{heading}'")
    return []


def table_rows(lines, columns):
    """The rows of the first table in `lines` with `columns` cells, without its header and rule."""
    rows = []
    started = False
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not started:
                started = True
                continue
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            if len(cells) == columns:
                rows.append(cells)
        elif started:
            break
    return rows


def suite_ids(findings):
    ids = set(re.findall(r'\b(?:check|need) "(KC\d\d)\b', read(SUITE)))
    if not ids:
        findings.append("kueue_conformance_test.sh: no check named KCnn")
    return ids


def against_suite(doc, table, rows, column, ids, findings):
    """Every KCnn that column `column` of `rows` names is one of the suite's `ids`, and every one
    of `ids` is named by some row."""
    named = set()
    for row in rows:
        found = set(ID.findall(row[column]))
        named |= found
        for kc in sorted(found - ids):
            findings.append(f"{doc}: row '{row[0][:60]}' names {kc}, which the suite does not run")
    for kc in sorted(ids - named):
        findings.append(f"{doc}: scenario {kc} of the suite is in no row of {table}")


def check_testing(ids, findings):
    doc = os.path.relpath(TESTING, ROOT)
    rows = table_rows(section(read(TESTING), "## Kueue conformance", TESTING, findings), 3)
    if not rows:
        findings.append(f"{doc}: the Kueue conformance table has no rows")
    for case, scenario, result in rows:
        found = set(ID.findall(scenario))
        if found and not re.match(r"(pass|difference:)", result):
            findings.append(f"{doc}: row '{case[:60]}' names {scenario} but its result is '{result[:40]}'")
        if not found and not re.match(r"(difference|not ported): \S", result):
            findings.append(f"{doc}: row '{case[:60]}' has no scenario and no reason why")
    against_suite(doc, "the Kueue conformance table", rows, 1, ids, findings)


def check_guide(ids, findings):
    doc = os.path.relpath(GUIDE, ROOT)
    rows = table_rows(section(read(GUIDE), "## What is supported", GUIDE, findings), 3)
    if not rows:
        findings.append(f"{doc}: the table of what is supported has no rows")
    for feature, support, scenarios in rows:
        if not re.match(r"(yes|partly|no)\b", support):
            findings.append(f"{doc}: '{feature[:60]}': '{support[:20]}' is not yes, partly or no")
        if re.match(r"(yes|partly)\b", support) and not ID.search(scenarios):
            findings.append(f"{doc}: '{feature[:60]}' is supported but names no scenario")
    against_suite(doc, "'What is supported'", rows, 2, ids, findings)


def main():
    findings = []
    ids = suite_ids(findings)
    check_testing(ids, findings)
    check_guide(ids, findings)
    for f in findings:
        print(f)
    print(f"{len(ids)} scenarios, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
