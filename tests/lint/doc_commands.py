#!/usr/bin/env python3
"""Checks that the commands the documentation shows name files, flags and values that exist
(ctest lint.doc_commands; `python3 tests/lint/doc_commands.py [--petname BIN] [FILE.md...]`,
exit 1 on a finding, one line each: FILE:LINE: what is wrong).

Commands are the lines of the fenced code blocks of README.md and docs/**/*.md (or of the FILEs
given) whose info string is empty, sh, bash, shell or console (in a block with `$ ` prompts,
the prompted lines only: the others are output). Lines ending in `\\` are joined, comments are
not read, a line that is not shell (an ASCII diagram) is skipped, and a line is cut into simple
commands at `;`, `&&`, `||`, `|`, `do`, `then` and the like. In them:

1. Files. A word (or the value of `--flag=VALUE` / `NAME=VALUE`) that is a relative path whose
   first directory is a top-level directory of the repository (one git tracks files in) must
   exist. Build outputs and downloaded data are not checked by that rule: their directories are
   the ones the repository's .gitignore keeps out from its root (`/build*/`, `/data/`), so git
   tracks nothing in them. After a `cd` the rest of the block is relative to somewhere else and
   its paths are not checked. `kubectl apply|create|delete -f FILE`
   must name a file of the repository, unless the page names FILE elsewhere (a file the reader
   writes, as the page says).
2. petname's flags. For `petname SUBCOMMAND ...` (petname as the command, or as `.../bin/petname`,
   also after `kubectl exec POD --`), the subcommand must exist and each `--flag` must be one it
   accepts; a flag whose help lists its values (`TEXT:{cpu,cuda}`) must be given one of them
   (a value with `$` or `<`, or in capitals, is a placeholder). The source of truth is the built
   binary's `--help` (CLI11 prints each subcommand's registered options): --petname BIN, else
   build/bin/petname; without one, petname's flags are not checked (a note on stderr).
3. Scripts' flags. A repository script run in a block (`bash scripts/x`, `docker/build.sh`, ...)
   that parses its flags itself (`case` labels `--x)`, or `== --x`) and refuses what it does not
   know (a `*)` branch that echoes, logs, dies or prints its usage) must be given only those
   flags, up to a `--`.
4. Helm values. `--set`, `--set-string`, `--set-json` and `--set-file` keys of `helm install` /
   `helm upgrade` of a chart of charts/ (by path, or by the chart's name) must exist in that
   chart's values.yaml; a key below an empty map (`podLabels: {}`) or a list is free. A code span
   in prose that gives `--set key=value` is read the same way when charts/ holds one chart.
"""

import argparse
import fnmatch
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COMMAND_LANGS = {"", "sh", "bash", "shell", "console"}
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "do", "then", "else", "{", "}", "$(", "`"}
PREFIXES = {"sudo", "time", "exec", "env", "nohup", "!"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PLACEHOLDER = re.compile(r"[$<>*?]|^[A-Z][A-Z0-9_]*$|^\.\.\.$")

# ---- the documents ------------------------------------------------------------------------------


def doc_files():
    found = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "docs"))
             for f in fs if f.endswith(".md")]
    return [os.path.join(ROOT, "README.md")] + sorted(found)


def code_blocks(text):
    """(info string, [(line number, line)]) of each fenced code block of a document."""
    blocks, fence = [], None
    for no, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence is None:
            m = re.match(r"(`{3,}|~{3,})\s*([\w-]*)", stripped)
            if m:
                fence = m.group(1)
                blocks.append((m.group(2).lower(), []))
        elif re.fullmatch(re.escape(fence[0]) + "{%d,}" % len(fence), stripped):
            fence = None
        else:
            blocks[-1][1].append((no, line))
    return blocks


def commands(lines):
    """(line number, text) of each command of a block: lines ending in `\\` are joined, and so
    are lines a quoted string goes on over. When some lines start with a `$ ` prompt, only those
    are commands (the others are their output)."""
    prompted = any(re.match(r"\s*\$ ", line) for _, line in lines)
    out, pending, start = [], None, 0
    for no, line in lines:
        if pending is None:
            if prompted and not re.match(r"\s*\$ ", line):
                continue
            pending, start = "", no
            line = re.sub(r"^\s*\$ ", "", line)
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        pending += line
        if words(pending) is None:
            pending += "\n"
            continue
        out.append((start, pending))
        pending = None
    return out


def words(command):
    """The shell words of one line, or None when it is not shell (an ASCII diagram, output)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def simple_commands(tokens):
    cur = []
    for t in tokens:
        if t in SEPARATORS or set(t) <= set(";&|()<>"):
            if cur:
                yield cur
            cur = []
        else:
            cur.append(t)
    if cur:
        yield cur


def strip_prefixes(cmd):
    """The command without the assignments and wrappers before it (X=1 sudo cmd -> cmd)."""
    i = 0
    while i < len(cmd) and (ASSIGNMENT.match(cmd[i]) or cmd[i] in PREFIXES):
        i += 1
    return cmd[i:]


def flag_of(word):
    """'--name' of a word such as --name, --name=value or [--name; None when it is no flag."""
    m = re.match(r"^\[?(--[A-Za-z0-9][\w-]*)", word)
    return m.group(1) if m else None


# ---- 1. files -----------------------------------------------------------------------------------


def ignored_roots():
    """The .gitignore patterns anchored at the root (`/build*/`): outputs, not sources."""
    try:
        with open(os.path.join(ROOT, ".gitignore"), encoding="utf-8") as f:
            return [l.strip().strip("/") for l in f if l.startswith("/")]
    except OSError:
        return []


def is_output(path):
    return any(fnmatch.fnmatch(path.split("/", 1)[0], p) for p in IGNORED)


def top_dirs():
    """The repository's top-level directories: those git tracks files in (a directory made in
    the checkout by hand, as runs/, is not one), else those on disk that .gitignore keeps."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                             check=True, text=True).stdout
        return {f.split("/", 1)[0] for f in out.split("\0") if "/" in f}
    except (OSError, subprocess.CalledProcessError):
        return {d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
                and not is_output(d)}


IGNORED = ignored_roots()
TOP_DIRS = top_dirs()


def repo_path(word):
    """The repository-relative path a word names, or None when it names none to check."""
    word = word.rstrip(",;:)]").lstrip("[(")
    if word.startswith("./"):
        word = word[2:]
    first = word.split("/", 1)[0]
    if "/" not in word or first not in TOP_DIRS or "$" in word or "<" in word:
        return None
    return word


def exists(path):
    if any(c in path for c in "*?["):
        return bool(glob.glob(os.path.join(ROOT, path)))
    return os.path.exists(os.path.join(ROOT, path))


def check_files(where, cmd, report):
    for word in cmd:
        for part in {word, word.split("=", 1)[-1]}:
            path = repo_path(part)
            if path and not exists(path):
                report(where, f"{path} does not exist in the repository")


def check_kubectl_files(where, cmd, page, report):
    if not cmd or cmd[0] != "kubectl" or not {"apply", "create", "delete", "replace"} & set(cmd):
        return
    for i, word in enumerate(cmd):
        value = None
        if word in ("-f", "--filename") and i + 1 < len(cmd):
            value = cmd[i + 1]
        elif word.startswith(("-f=", "--filename=")):
            value = word.split("=", 1)[1]
        if (not value or value == "-" or "://" in value or PLACEHOLDER.search(value)
                or repo_path(value) or is_output(value)):
            continue  # a repository path is checked as every path is
        if not os.path.exists(os.path.join(ROOT, value)) and page.count(value) < 2:
            report(where, f"kubectl -f {value}: no such file in the repository")


# ---- 2. petname's flags -------------------------------------------------------------------------

HELP_OPTION = re.compile(r"^  (?:-\w,)?(--[\w-]+)(?:\s+[A-Z]+(?::\{([^}]*)\})?)?")


def read_help(binary, *args):
    r = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=False,
                       timeout=60)
    if r.returncode != 0:
        raise OSError(f"{binary} {' '.join(args)} --help: exit {r.returncode}")
    return r.stdout


def parse_help(text):
    """CLI11 help -> ({--flag: set of values or None}, [subcommands])."""
    flags, subs, section = {}, [], None
    for line in text.split("\n"):
        if re.match(r"^\S.*:$", line):
            section = line[:-1]
            continue
        if section == "Options":
            m = HELP_OPTION.match(line)
            if m:
                flags[m.group(1)] = set(m.group(2).split(",")) if m.group(2) else None
        elif section == "Subcommands":
            m = re.match(r"^  ([\w-]+)", line)
            if m:
                subs.append(m.group(1))
    return flags, subs


def petname_cli(binary):
    """{'': top-level flags, SUBCOMMAND: its flags} from the binary's help."""
    flags, subs = parse_help(read_help(binary))
    cli = {"": flags}
    for sub in subs:
        cli[sub] = parse_help(read_help(binary, sub))[0]
    return cli


def petname_args(cmd):
    """The words after `petname` when the command runs petname, else None."""
    for i, word in enumerate(cmd):
        if (word == "petname" or word.endswith("/bin/petname")) and "$" not in word and (
                i == 0 or cmd[i - 1] == "--"):
            return cmd[i + 1:]
    return None


def check_flags(where, what, args, accepted, report):
    """Each --flag of args is one of accepted ({flag: values or None}); stops at `--`."""
    for i, word in enumerate(args):
        if word == "--":
            return
        flag = flag_of(word)
        if not flag:
            continue
        if flag not in accepted:
            report(where, f"{what}: unknown flag {flag}")
            continue
        values = accepted[flag]
        if values is None:
            continue
        value = word.split("=", 1)[1] if "=" in word else (args[i + 1] if i + 1 < len(args) else "")
        value = value.rstrip("]")
        if value and not PLACEHOLDER.search(value) and value not in values:
            report(where, f"{what}: {flag} {value}: not one of {', '.join(sorted(values))}")


def check_petname(where, cmd, cli, report):
    args = petname_args(cmd)
    if args is None or cli is None:
        return
    if not args or args[0].startswith("-"):
        check_flags(where, "petname", args, cli[""], report)
    elif args[0] not in cli:
        if not PLACEHOLDER.search(args[0]):
            report(where, f"petname {args[0]}: no such subcommand ({', '.join(sorted(cli)[1:])})")
    else:
        check_flags(where, f"petname {args[0]}", args[1:], cli[args[0]], report)


# ---- 3. scripts' flags --------------------------------------------------------------------------

# `--x)`, `-h | --help)`: a case label of flags.
CASE_LABEL = re.compile(r"^\s*((?:-{1,2}[\w-]+\s*\|\s*)*--[\w-]+(?:\s*\|\s*-{1,2}[\w-]+)*)\s*\)",
                        re.M)
COMPARED = re.compile(r"[!=]=\s*[\"']?(--[\w-]+)\b")
REFUSES = re.compile(r"^\s*-?\*\)\s*(?:echo|usage|die|log)\b", re.M)
_script_flags = {}


def script_flags(path):
    """The flags a repository script parses, or None when it does not refuse others."""
    if path not in _script_flags:
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            text = ""
        flags = set(COMPARED.findall(text))
        for label in CASE_LABEL.findall(text):
            flags.update(re.findall(r"--[\w-]+", label))
        _script_flags[path] = {f: None for f in flags} if flags and REFUSES.search(text) else None
    return _script_flags[path]


def check_script(where, cmd, report):
    if cmd and cmd[0] in ("bash", "sh"):
        cmd = cmd[1:]
    path = repo_path(cmd[0]) if cmd else None
    if not path or not os.path.isfile(os.path.join(ROOT, path)):
        return
    accepted = script_flags(path)
    if accepted is not None:
        check_flags(where, path, cmd[1:], accepted, report)


# ---- 4. helm values -----------------------------------------------------------------------------

SET_FLAGS = ("--set", "--set-string", "--set-json", "--set-file")


def values_keys(path):
    """values.yaml -> nested dict of its keys: a key with a value maps to "value", one with keys
    under it to a dict of them; one whose value is {} or [] (free-form) maps to None, and one
    with only a list under it to {} (free as well)."""
    root = {}
    stack = [(-1, root)]  # (indent, map) of the maps that enclose the line
    skip_deeper = None  # inside a block scalar or a list item: lines indented more than this
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            indent = len(line) - len(line.lstrip())
            if skip_deeper is not None and indent > skip_deeper:
                continue
            skip_deeper = None
            if line.lstrip().startswith("-"):
                skip_deeper = indent  # a list item and what it holds
                continue
            m = re.match(r"^\s*([\w.\-/\"']+):(?:\s+(.*))?$", line.rstrip())
            if not m:
                continue
            while stack[-1][0] >= indent:
                stack.pop()
            key, value = m.group(1).strip("\"'"), (m.group(2) or "").split(" #")[0].strip()
            parent = stack[-1][1]
            if value.startswith(("[", "{")):
                parent[key] = None
            elif value == "":
                parent[key] = {}
                stack.append((indent, parent[key]))
            else:
                parent[key] = "value"
                if value[0] in "|>":
                    skip_deeper = indent
    return root


def helm_key_known(keys, key):
    node = keys
    for part in re.split(r"(?<!\\)\.", re.sub(r"\[\d+\]", "", key)):
        if node is None:
            return True  # below a free-form map or a list
        if not isinstance(node, dict):
            return False
        if part.replace("\\.", ".") not in node:
            return False
        node = node[part.replace("\\.", ".")]
        if isinstance(node, dict) and not node:
            node = None  # a map with nothing under it ("key:" alone): free
    return True


def set_keys(cmd):
    for i, word in enumerate(cmd):
        flag, sep, value = word.partition("=")
        if flag in SET_FLAGS:
            value = value if sep else (cmd[i + 1] if i + 1 < len(cmd) else "")
            for item in re.split(r"(?<!\\),", value):
                if "=" in item:
                    yield item.split("=", 1)[0]


def chart_of(cmd):
    for word in cmd[2:]:
        path = repo_path(word)
        if path and os.path.isfile(os.path.join(ROOT, path, "values.yaml")):
            return path
        name = word.rstrip("/").rsplit("/", 1)[-1]
        if "/" in word and "://" not in word and os.path.isfile(
                os.path.join(ROOT, "charts", name, "values.yaml")):
            return os.path.join("charts", name)
    return None


def check_helm(where, cmd, report, chart=None):
    if chart is None:
        if len(cmd) < 2 or cmd[0] != "helm" or cmd[1] not in ("install", "upgrade", "template"):
            return
        chart = chart_of(cmd)
        if chart is None:
            return
    keys = values_keys(os.path.join(ROOT, chart, "values.yaml"))
    for key in set_keys(cmd):
        if not PLACEHOLDER.search(key) and not helm_key_known(keys, key):
            report(where, f"--set {key}: no such key in {chart}/values.yaml")


def only_chart():
    charts = glob.glob(os.path.join(ROOT, "charts", "*", "values.yaml"))
    return os.path.relpath(os.path.dirname(charts[0]), ROOT) if len(charts) == 1 else None


def check_prose_set(rel, text, report):
    """`--set key=value` in code spans outside code blocks, against the one chart."""
    chart = only_chart()
    if chart is None:
        return
    lines = text.split("\n")
    for _, block in code_blocks(text):
        for no, _ in block:
            lines[no - 1] = ""
    prose = "\n".join(lines)
    for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", prose):
        cmd = words(m.group(1).replace("\n", " ")) if "--set" in m.group(1) else None
        if cmd:
            where = f"{rel}:{prose.count(chr(10), 0, m.start()) + 1}"
            check_helm(where, cmd, report, chart)


# ---- main ---------------------------------------------------------------------------------------


def check_document(path, cli, report):
    rel = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for lang, lines in code_blocks(text):
        if lang in COMMAND_LANGS:
            check_block(rel, lines, text, cli, report)
    check_prose_set(rel, text, report)


def check_block(rel, lines, page, cli, report):
    moved = False  # after a `cd`, relative paths are relative to somewhere else
    for no, line in commands(lines):
        tokens = words(line)
        if not tokens:
            continue
        where = f"{rel}:{no}"
        for cmd in simple_commands(tokens):
            cmd = strip_prefixes(cmd)
            if not cmd:
                continue
            if cmd[0] in ("cd", "pushd"):
                moved = True
                continue
            if not moved:
                check_files(where, cmd, report)
                check_kubectl_files(where, cmd, page, report)
                check_script(where, cmd, report)
            check_petname(where, cmd, cli, report)
            check_helm(where, cmd, report)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--petname", help="the built petname (default build/bin/petname)")
    parser.add_argument("files", nargs="*", help="documents (default README.md, docs/**/*.md)")
    args = parser.parse_args(argv)
    binary = args.petname or os.path.join(ROOT, "build", "bin", "petname")
    cli = None
    if args.petname or os.access(binary, os.X_OK):
        try:
            cli = petname_cli(binary)
        except (OSError, subprocess.SubprocessError) as e:
            print(f"doc_commands: cannot read petname's flags: {e}", file=sys.stderr)
            return 2
    else:
        print(f"doc_commands: note: no {binary}; petname's flags not checked (--petname BIN)",
              file=sys.stderr)
    problems = []
    files = [os.path.abspath(f) for f in args.files] or doc_files()
    for path in files:
        check_document(path, cli, lambda where, what: problems.append(f"{where}: {what}"))
    for p in dict.fromkeys(problems):
        print(p)
    if problems:
        print(f"doc_commands: {len(dict.fromkeys(problems))} problem(s)", file=sys.stderr)
        return 1
    print(f"doc_commands: the commands of {len(files)} documents name what exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
