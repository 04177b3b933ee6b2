#!/usr/bin/env python3
"""What a Dockerfile's `build` stage does, done on this Debian 12 host in seconds instead of
inside a container in minutes, so that a folder or a package the stage misses fails at once.

    tests/docker/build_stage.py [--context DIR] [--log FILE] DOCKERFILE...

For each DOCKERFILE (its build context: --context, default the repository root):
  1. Files. The stage's `COPY SRC DST` lines (not `--from`) copy the tracked files under each SRC
     (git ls-files) into an empty folder standing for the container's root, at DST under the
     stage's WORKDIR. A SRC with no tracked file is a finding.
  2. Commands. Each `RUN` is split at `&&`; its `cmake -S ... -B ...` configure runs here as
     written, in the WORKDIR, with the container's own paths (those not under a host system
     folder: /src, /build) moved into that folder; `cmake --build DIR --target T` runs as a
     ninja dry run (`-- -n`: every input must exist or have a rule, nothing compiles);
     `strip PATH` needs PATH to be an output the build knows. apt-get lines are step 3; other
     commands (rm, ...) are not run.
     The packages of an `apt-get install` are the words after `install` and, for
     `LIST | xargs apt-get install ...` (the Dockerfiles install the lists of scripts/packages/
     that way), the words LIST prints: LIST (cat, sed or grep) runs here over the stage's
     folder, so a list the stage does not COPY is a finding.
  3. Packages. The files the configure read outside the copied tree (the CMake files it included,
     every absolute path of CMakeCache.txt and build.ninja: config files, libraries, the
     compiler) are mapped to their Debian packages (dpkg -S). Each must be installed by the
     stage: resolved by apt from its `apt-get install` packages (step 2) as on an empty system
     (`apt-get -s` with an empty dpkg status, from this host's package lists), or be part of
     the debootstrap base (Priority required or Essential). A file that no package owns is a
     finding too: the image would not have it.
Prints one `ok - ...` line per Dockerfile, or one line per finding naming the Dockerfile, the
file and the package; exit 0 when all are clean, 1 on a finding, 2 on a usage error or when the
host lacks what the check runs (cmake, ninja, dpkg, apt-get with package lists).
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Top folders of the host's own system: a path under one of them is the host's, not the stage's.
HOST_DIRS = ("usr", "etc", "bin", "sbin", "lib", "lib64", "opt", "var", "dev", "proc", "sys",
             "tmp", "run", "home", "root")
SHELL_OPS = {"&&", "||", ";", "|"}
# What may print the packages of a `... | xargs apt-get install`.
LIST_TOOLS = ("cat", "sed", "grep")


class Finding(Exception):
    """A problem of the Dockerfile under check: one line."""


def instructions(path):
    """[(KEYWORD, argument text)] of a Dockerfile: continuation lines joined, comments dropped."""
    out, cur = [], ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not cur and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if cur and line.lstrip().startswith("#"):
                continue
            if line.endswith("\\"):
                cur += line[:-1] + " "
                continue
            cur += line
            keyword, _, rest = cur.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
            cur = ""
    return out


def build_stage(path):
    """The instructions of the stage named `build` (FROM ... AS build)."""
    stage, found = [], False
    for keyword, rest in instructions(path):
        if keyword == "FROM":
            if found:
                break
            found = re.search(r"\s+AS\s+build$", rest, re.IGNORECASE) is not None
            continue
        if found:
            stage.append((keyword, rest))
    if not found:
        raise Finding("has no stage named build (FROM ... AS build)")
    return stage


def apt_install(command):
    """The words after `install` of an `apt-get install` command (also behind xargs), or None."""
    words = command[1:] if command and command[0] == "xargs" else command
    if len(words) < 2 or os.path.basename(words[0]) != "apt-get" or "install" not in words[1:6]:
        return None
    return words[words.index("install") + 1:]


def apt_packages(stage, command_words, log):
    """The packages of every `apt-get install` in a RUN's words: those written after `install`
    and, for `LIST | xargs apt-get install`, the words LIST prints, LIST (cat, sed or grep over
    files the stage copied) run here over the stage's folder."""
    packages = []
    for pipeline in pipelines(command_words):
        for i, command in enumerate(pipeline):
            words = apt_install(command)
            if words is None:
                continue
            packages += [w for w in words if not w.startswith("-")]
            if command[0] == "xargs":
                if i == 0:
                    raise Finding("`xargs apt-get install` with no `... |` giving it the packages")
                packages += stage.output(pipeline[:i], log)
    return packages


def pipelines(words):
    """A RUN's words split at the shell's &&, || and ;, each a list of commands split at |
    (redirections dropped)."""
    out, pipeline, cur = [], [], []
    for w in words + ["&&"]:
        if w in SHELL_OPS:
            if cur:
                pipeline.append(cur)
            cur = []
            if w != "|":
                if pipeline:
                    out.append(pipeline)
                pipeline = []
        elif not re.match(r"^\d?>", w):
            cur.append(w)
    return out


def segments(words):
    """A RUN's commands, split at the shell's operators (redirections dropped)."""
    return [command for pipeline in pipelines(words) for command in pipeline]


class Stage:
    """The container's filesystem of one check: a folder standing for its root."""

    def __init__(self, context, tmp):
        self.context, self.root, self.workdir = context, tmp, "/"
        self.copied = 0

    def host(self, container_path):
        path = container_path if container_path.startswith("/") else \
            os.path.join(self.workdir, container_path)
        return os.path.normpath(self.root + "/" + path)

    def move(self, word):
        """A word naming a container path (absolute, not under a host folder) moved here."""
        if word.startswith("/") and word.strip("/").split("/")[0] not in HOST_DIRS:
            return self.host(word)
        return word

    def output(self, pipeline, log):
        """The words a pipeline of cat, sed and grep prints, run in the stage's folder."""
        data = None
        for command in pipeline:
            if os.path.basename(command[0]) not in LIST_TOOLS:
                raise Finding(f"`{shlex.join(command)} | ... apt-get install`: only "
                              f"{', '.join(LIST_TOOLS)} may give apt-get its packages here")
            cmd = [self.move(w) for w in command]
            os.makedirs(self.host(self.workdir), exist_ok=True)
            r = subprocess.run(cmd, cwd=self.host(self.workdir), input=data, capture_output=True,
                               text=True, check=False)
            log.write(f"$ {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
            if r.returncode != 0:
                raise Finding(f"`{shlex.join(command)}` (the packages of its apt-get install) "
                              f"fails over the files the stage copies: "
                              f"{r.stderr.strip().replace(self.root, '')[:300]}")
            data = r.stdout
        return data.split()

    def copy(self, rest):
        words = shlex.split(rest)
        if any(w.startswith("--from") for w in words):
            return
        words = [w for w in words if not w.startswith("--")]
        *sources, dest = words
        for src in sources:
            tracked = subprocess.run(["git", "-C", self.context, "ls-files", "-z", "--", src],
                                     capture_output=True, text=True, check=False).stdout
            files = [f for f in tracked.split("\0") if f]
            if not files:
                raise Finding(f"COPY {src}: no tracked file in the build context")
            target = self.host(dest)
            for f in files:
                rel = os.path.basename(f) if f == src else os.path.relpath(f, src)
                to = os.path.join(target, rel) if dest.endswith("/") or len(files) > 1 \
                    or f != src else target
                os.makedirs(os.path.dirname(to), exist_ok=True)
                shutil.copy2(os.path.join(self.context, f), to)
                self.copied += 1


def run(cmd, cwd, log):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    log.write(f"$ {shlex.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


def first_error(output):
    """The first CMake or ninja error of an output, on one line."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if "Error" in line or line.startswith("ninja: error"):
            text = " ".join(l.strip() for l in lines[i:i + 5] if l.strip())
            return text[:300]
    return (lines[-1] if lines else "no output")[:300]


def run_commands(stage, commands, log):
    """Runs the stage's cmake configure and dry-runs its build; returns the build folders."""
    builds, stripped, ran = [], [], False
    for words in commands:
        for seg in segments(words):
            tool = os.path.basename(seg[0])
            if tool == "cmake" and "--build" in seg:
                cmd = [stage.move(w) for w in seg] + ["--", "-n"]
                r = run(cmd, stage.host(stage.workdir), log)
                if r.returncode != 0:
                    raise Finding(f"`{shlex.join(seg)}` fails (dry run): {first_error(r.stdout + r.stderr)}")
                ran = True
            elif tool == "cmake":
                cmd = [stage.move(w) for w in seg]
                if "-B" not in seg:
                    raise Finding(f"`{shlex.join(seg)}`: no -B build folder")
                builds.append(cmd[seg.index("-B") + 1])
                os.makedirs(stage.host(stage.workdir), exist_ok=True)
                r = run(cmd, stage.host(stage.workdir), log)
                if r.returncode != 0:
                    raise Finding(f"`{shlex.join(seg)}` fails over the files the stage copies: "
                                  f"{first_error(r.stdout + r.stderr).replace(stage.root, '')}")
            elif tool == "strip":
                stripped += [stage.move(w) for w in seg[1:] if not w.startswith("-")]
    if not builds or not ran:
        raise Finding("no `cmake -S ... -B DIR` configure and `cmake --build DIR` in its RUN lines")
    for path in stripped:
        build = next((b for b in builds if path.startswith(b + "/")), None)
        out = os.path.relpath(path, build) if build else path
        if build is None or run(["ninja", "-C", build, "-t", "query", out], build,
                                log).returncode != 0:
            raise Finding(f"strip {path[len(stage.root):]}: not an output of the build")
    return builds


def files_read(build, tree):
    """Absolute paths outside TREE that the configure in BUILD read or wrote into its files."""
    found = set()
    for name in ("CMakeCache.txt", "build.ninja"):
        with open(os.path.join(build, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        found.update(re.findall(r"(?<![\w.+-])(/(?:usr|lib|lib64|bin|sbin|opt|etc)/[\w.+/-]+)", text))
    return sorted(p for p in found if not p.startswith(tree) and os.path.isfile(p))


def dpkg_search(paths):
    """{path: package} of the paths dpkg knows, from one `dpkg -S` run."""
    r = subprocess.run(["dpkg", "-S", *paths], capture_output=True, text=True, check=False)
    found = {}
    for line in r.stdout.splitlines():
        if line.startswith("diversion ") or ": " not in line:
            continue
        packages, path = line.rsplit(": ", 1)
        found[path] = packages.split(",")[0].strip().split(":")[0]
    return found


def owners(paths):
    """{path: package} for each path a Debian package owns (also through /usr-merged /lib and
    /bin, or the path a symlink such as an alternative resolves to); unowned ones left out."""
    result = {}
    for variant in (lambda p: p, lambda p: re.sub(r"^/usr(?=/(?:lib|bin|sbin|lib64)/)", "", p),
                    os.path.realpath):
        todo = {variant(p): p for p in paths if p not in result}
        if todo:
            for path, pkg in dpkg_search(sorted(todo)).items():
                if path in todo:
                    result[todo[path]] = pkg
    return result


def installed_by(packages, log):
    """The packages apt installs for PACKAGES on an empty system, with the base's."""
    cmd = ["apt-get", "install", "-s", "--no-install-recommends", "-o", "Dir::State::status=/dev/null",
           "-o", "Debug::NoLocking=1", *packages]
    r = run(cmd, "/", log)
    if r.returncode != 0:
        raise Finding(f"apt-get cannot resolve its packages {' '.join(packages)}: "
                      f"{first_error(r.stdout + r.stderr)}")
    return set(re.findall(r"^Inst (\S+)", r.stdout, re.M)) | set(packages)


def in_base(package):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Priority} ${Essential}", package],
                       capture_output=True, text=True, check=False)
    return r.returncode == 0 and (r.stdout.startswith("required") or r.stdout.endswith("yes"))


def check(dockerfile, context, log):
    """Returns the number of packages the configure read; raises Finding."""
    stage_lines = build_stage(dockerfile)
    with tempfile.TemporaryDirectory(prefix="build-stage.") as tmp:
        stage = Stage(context, tmp)
        packages, commands = [], []
        for keyword, rest in stage_lines:
            if keyword == "WORKDIR":
                stage.workdir = os.path.join(stage.workdir, rest)
            elif keyword == "COPY":
                stage.copy(rest)
            elif keyword == "RUN":
                words = shlex.split(rest)
                packages += apt_packages(stage, words, log)
                if any(os.path.basename(w) in ("cmake", "strip") for w in words):
                    commands.append(words)
        if not packages:
            raise Finding("its build stage installs no package (apt-get install)")
        builds = run_commands(stage, commands, log)
        paths = sorted({p for b in builds for p in files_read(b, tmp)})
        owned = owners(paths)
        for path in paths:
            if path not in owned:
                raise Finding(f"the configure read {path}, which no Debian package owns "
                              "(the image will not have it)")
        have = installed_by(packages, log)
        missing = {}
        for path, pkg in owned.items():
            if pkg not in have and not in_base(pkg):
                missing.setdefault(pkg, path)
        if missing:
            raise Finding("; ".join(f"the build stage does not install {pkg}, whose {path} "
                                    "the configure read" for pkg, path in sorted(missing.items())))
        return len(set(owned.values())), stage.copied


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--context", default=ROOT)
    parser.add_argument("--log", help="append the commands' output here")
    parser.add_argument("dockerfiles", nargs="+")
    args = parser.parse_args()
    for tool in ("cmake", "ninja", "dpkg", "apt-get", "git"):
        if shutil.which(tool) is None:
            print(f"build_stage.py: {tool} missing: run scripts/setup", file=sys.stderr)
            return 2
    lists = "/var/lib/apt/lists"
    if not os.path.isdir(lists) or not any("_Packages" in f for f in os.listdir(lists)):
        print("build_stage.py: no apt package lists (/var/lib/apt/lists): run apt-get update",
              file=sys.stderr)
        return 2
    bad = 0
    with open(args.log or os.devnull, "a", encoding="utf-8") as log:
        for dockerfile in args.dockerfiles:
            name = os.path.relpath(dockerfile, ROOT) if dockerfile.startswith(ROOT) else dockerfile
            try:
                packages, copied = check(os.path.abspath(dockerfile), args.context, log)
                print(f"ok - {name}: the build stage configures over the {copied} files it copies, "
                      f"plans its target, and installs the {packages} packages its configure reads")
            except Finding as e:
                print(f"{name}: {e}")
                bad += 1
            except OSError as e:
                print(f"{name}: {e}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
