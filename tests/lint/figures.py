#!/usr/bin/env python3
"""Checks that the documentation's figures can be traced and that the product names no path
outside the repository (ctest lint.figures; `python3 tests/lint/figures.py`, exit 1 on a finding).

1. Figures. In README.md and docs/*.md, a *figure* is a number followed by a unit of time or
   speed: s, ms, µs, min, h, sec(onds), minute(s), hour(s), or samples/s, examples per second,
   names/s, requests/s, GFLOP/s, M/s, k/s, GB/s, Gb/s (with an optional k or M before the
   unit, as in "3.55 M samples/s").
   Not figures, because they are not read from a measurement: anything in a code span or a
   fenced or indented code block, in an HTML comment or a link target, and configuration values:
   a figure whose sentence, in the 60 characters before it, has one of the words of CONFIG_CUES
   (default, timeout, interval, deadline, grace, backoff, at most, every, after, within, target,
   ...), or that follows a bound (≤ 2 s, >= 3 M samples/s), or that follows
   a code span naming a flag (`--x`) in its sentence, or that is followed by one of AFTER_CUES ("1 s scrapes",
   "10 s TERM grace").
   Each figure needs a source in its scope:
     - a reference to a file under bench/results/ that exists in the repository, or
     - the marker "(estimate)" (a figure worked out, not measured), or
     - the marker "(raw output not kept)" (measured, but the run's output was not kept).
   A marker may also end a parenthesis after a semicolon or comma: "(2026-11-23; estimate)",
   "(three runs, raw output not kept)".
   The scope of a figure is its block (a paragraph, or a list without blank lines), and for a
   table the table and the block just before it (its caption), plus the *intro* of every section
   that encloses it: the heading line of each enclosing ##/###/#### section (not the document's
   # title) and that section's first prose block. So a whole section is sourced by naming its raw file, or its marker, in
   its heading or first paragraph.

2. Development process. README.md and docs/*.md describe the product: they may not cite the
   project's own issues ("issue 26", "issue #26", "#26 "; a reference to another project's
   tracker, owner/repo#N or a GitHub URL, is fine), talk of sessions or of machines lent, or name
   a branch in a heading.

3. Paths. No product file (README.md, docs/, examples/, charts/, scripts/, docker/, crds/,
   cmake/, bench/ but bench/results/, tests/, trainer/, operator/, common/, CMakeLists.txt)
   names a place outside the repository: "../shared" or "/work/" (this file excepted, which
   names them to find them). A local copy of the data is given by a variable the tests set
   (PETNAME_DATA_FILE, read by scripts/get-data), never by a path beside the repository.
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# --- 1. figures -----------------------------------------------------------------------------

NUMBER = r"(?<![\w.,/-])~?\d+(?:,\d{3})*(?:\.\d+)?"
SPEED = (r"(?:[kM]\s)?(?:samples|examples|names|requests|steps)(?:/s\b|\s+per\s+second\b)"
         r"|[kMGT]?FLOP/s\b|[kM]/s\b|[KMG]i?B/s\b|Gb/s\b")
TIME = r"(?:ms|µs|us|s|sec|seconds?|min|minutes?|h|hours?)(?![\w/])"
FIGURE = re.compile(NUMBER + r"\s?(?:" + SPEED + r"|" + TIME + r")")
# Words that make a figure a setting or a bound rather than a measurement.
CONFIG_CUES = re.compile(
    r"\b(?:defaults?|timeouts?|intervals?|deadlines?|grace|backoff|retry|retries|period|capped|"
    r"cap|limit|ceiling|at most|at least|up to|every|after|within|waits?|bounded|bounds|"
    r"expires?|TTL|older than|sleep|polled|polls?|scrapes?|doubl\w*|buckets?|targets?|FLAGSPAN)\b"
    r"|[≤≥<>]=?\s*$",
    re.IGNORECASE)
AFTER_CUES = re.compile(r"^\s*(?:\w+\s)?(?:scrapes?|polls?|grace|timeout|intervals?|deadline|"
                        r"backoff|buckets?|delay|after)\b", re.IGNORECASE)
SOURCE = re.compile(r"bench/results/([\w.+-]+)")
# "(estimate)", "(raw output not kept)", or either as the last item of a parenthesis:
# "(2026-11-23; raw output not kept)".
MARKER = re.compile(r"\((?:[^()]*?[;,]\s*)?(?:estimate|raw\s+output\s+not\s+kept)\)")

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
COMMENT = re.compile(r"<!--.*?-->")

# --- 2. development process -------------------------------------------------------------------

PROCESS = [
    (re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE), "cites an issue of the project"),
    (re.compile(r"(?<![\w/.-])#\d+\b"), "cites an issue number"),
    (re.compile(r"\bsessions?\b", re.IGNORECASE), "talks of sessions"),
    (re.compile(r"\blent\b", re.IGNORECASE), "talks of machines lent"),
]
UPSTREAM = re.compile(r"(?:[\w.-]+/[\w.-]+|github\.com/\S*)$")  # owner/repo just before "#N"
BRANCH_HEADING = re.compile(r"\bbranch\b", re.IGNORECASE)

# --- 3. paths outside the repository ------------------------------------------------------------

OUTSIDE = re.compile(r"\.\./shared\b|(?<![\w.])/work/")
PRODUCT_DIRS = ("docs", "examples", "charts", "scripts", "docker", "crds", "cmake", "bench",
                "tests", "trainer", "operator", "common")
PRODUCT_FILES = ("README.md", "CMakeLists.txt")
SKIP_DIRS = {"bench/results", ".git"}
TEXT_EXT = (".md", ".sh", ".py", ".cc", ".h", ".txt", ".cmake", ".yaml", ".yml", ".json", ".tpl",
            ".in", "")

def split_blocks(text):
    """Markdown -> list of (kind, first_line, lines): kind is 'heading', 'table', 'prose' or
    'code'. Blank lines separate blocks; fences and indented code are 'code'."""
    blocks, cur, kind = [], [], None
    fence = None
    prev_blank = True

    def flush():
        nonlocal cur, kind
        if cur:
            blocks.append((kind, cur[0][0], [l for _, l in cur]))
        cur, kind = [], None

    lines = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"),
                        re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text,
                               flags=re.S)).split("\n")
    for no, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence:
            cur.append((no, line))
            if stripped.startswith(fence):
                flush()
                fence = None
            prev_blank = False
            continue
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            flush()
            fence, kind = m.group(1), "code"
            cur.append((no, line))
            continue
        if not stripped:
            flush()
            prev_blank = True
            continue
        if (line.startswith("    ") or line.startswith("\t")) and (prev_blank or kind == "code"):
            if kind != "code":
                flush()
                kind = "code"
            cur.append((no, line))
            prev_blank = False
            continue
        if re.match(r"#{1,6}\s", line):
            flush()
            blocks.append(("heading", no, [line]))
            prev_blank = True  # an indented line right after a heading is code
            continue
        k = "table" if stripped.startswith("|") else "prose"
        if kind not in (None, k):
            flush()
        kind = k
        cur.append((no, line))
        prev_blank = False
    flush()
    return blocks


def prose_text(lines):
    """The block's text as figures are looked for in it: link targets dropped, each code span
    replaced by a placeholder, FLAGSPAN where it names a flag (a configuration cue)."""
    text = "\n".join(lines)
    text = CODE_SPAN.sub(lambda m: (" FLAGSPAN " if m.group(0).lstrip("`").startswith("--")
                                    else " CODE ") + "\n" * m.group(0).count("\n"), text)
    return LINK_TARGET.sub("]", text)


def has_source(lines, missing):
    text = "\n".join(lines)
    if MARKER.search(text):
        return True
    found = False
    for name in SOURCE.findall(text):
        name = name.rstrip(".,;:")
        if os.path.isfile(os.path.join(ROOT, "bench", "results", name)):
            found = True
        else:
            missing.add(name)
    return found


def figures_in(line_text):
    """Figures of one block's text that are measurements (not configuration values)."""
    out = []
    for m in FIGURE.finditer(line_text):
        start = m.start()
        before = line_text[max(0, start - 60):start]
        # only the current sentence or table cell counts
        before = re.split(r"(?:[.;!?]\s|\|)", before)[-1]
        if CONFIG_CUES.search(before) or AFTER_CUES.match(line_text[m.end():m.end() + 30]):
            continue
        out.append((line_text.count("\n", 0, start), m.group(0)))
    return out


def check_figures(path, text, problems):
    blocks = split_blocks(text)
    sections = []  # stack of (level, intro lines)
    intro_open = None  # the section whose first prose block is still to come
    prev = None
    for kind, first, lines in blocks:
        if kind == "heading":
            level = len(lines[0]) - len(lines[0].lstrip("#"))
            while sections and sections[-1][0] >= level:
                sections.pop()
            if level == 1:  # the document's title: its intro sources nothing below it
                intro_open = None
                prev = None
                continue
            sections.append((level, list(lines)))
            intro_open = sections[-1]
            prev = None
            continue
        if kind == "code":
            continue
        if kind == "prose" and intro_open is not None:
            intro_open[1].extend(lines)
            intro_open = None
        scope = list(lines)
        if kind == "table" and prev is not None:
            scope += prev
        for _, intro in sections:
            scope += intro
        missing = set()
        sourced = has_source(scope, missing)
        for name in sorted(missing):
            problems.append(f"{path}:{first}: bench/results/{name} does not exist")
        if not sourced:
            for i, fig in figures_in(prose_text(lines)):
                problems.append(
                    f"{path}:{first + i}: figure '{fig}' has no source (a bench/results/ file, "
                    f"'(estimate)' or '(raw output not kept)' in its paragraph, table caption or "
                    f"section intro)")
        prev = lines if kind == "prose" else prev


def check_process(path, text, problems):
    for kind, first, lines in split_blocks(text):
        if kind == "code":
            continue
        for i, line in enumerate(lines):
            plain = LINK_TARGET.sub("]", line)
            if kind == "heading" and BRANCH_HEADING.search(plain):
                problems.append(f"{path}:{first + i}: a heading names a branch")
            for pattern, what in PROCESS:
                for m in pattern.finditer(plain):
                    if what == "cites an issue number" and UPSTREAM.search(plain[:m.start()]):
                        continue
                    if what == "cites an issue of the project" and re.search(
                            r"(?:GitHub|upstream|[\w.-]+/[\w.-]+)\s*$", plain[:m.start()]):
                        continue
                    problems.append(f"{path}:{first + i}: {what}: '{m.group(0)}'")


def product_files():
    for name in PRODUCT_FILES:
        if os.path.isfile(os.path.join(ROOT, name)):
            yield name
    for top in PRODUCT_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            rel_dir = os.path.relpath(dirpath, ROOT)
            dirnames[:] = [d for d in dirnames
                           if os.path.join(rel_dir, d) not in SKIP_DIRS and not d.startswith(".")]
            for f in filenames:
                if os.path.splitext(f)[1] in TEXT_EXT:
                    yield os.path.join(rel_dir, f)


def check_paths(problems):
    for rel in product_files():
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                lines = f.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        if rel == os.path.join("tests", "lint", "figures.py"):
            continue
        for no, line in enumerate(lines, 1):
            if OUTSIDE.search(line):
                problems.append(f"{rel}:{no}: names a path outside the repository: "
                                f"{line.strip()[:100]}")


def main():
    problems = []
    docs = ["README.md"] + sorted(
        os.path.relpath(os.path.join(d, f), ROOT)
        for d, _, files in os.walk(os.path.join(ROOT, "docs")) for f in files if f.endswith(".md"))
    for rel in docs:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        check_figures(rel, text, problems)
        check_process(rel, text, problems)
    check_paths(problems)
    for p in problems:
        print(p)
    if problems:
        print(f"figures: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"figures: {len(docs)} documents and the product's paths clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
