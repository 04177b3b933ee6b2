#!/usr/bin/env python3
"""Which LibTorch petname loads and where every shared library it needs comes from: the checks the
GPU bundle's launcher (bench/gpu/bundle_run.sh) makes before it runs anything, and the choice of
libraries bench/gpu/bundle.sh and bench/gpu/kit_test.sh rely on. Standard library only (it runs
on the GPU machine). Each subcommand prints one line (bundle-libs: one path a line) and exits 0
when the check holds, 1 with the reason on that line when it does not, 2 on unusable input.

  runtime.py torch DIR
      DIR's torch version and the CUDA major version its libtorch_cuda.so links, e.g.
      `2.11.0 13` (`none` without libtorch_cuda.so). DIR is an installed torch package
      (version.py), a LibTorch folder (build-version) or the headers and libraries of a wheel
      (include/torch/.../version.h); the CUDA version is the N of the libcudart.so.N it needs.
  runtime.py match VERSION CUDA DIR
      DIR's torch has VERSION's major.minor and CUDA major CUDA (`runtime.py torch` of the
      LibTorch petname was built against)
  runtime.py resolve BINARY DIR...
      `ldd BINARY` (under this environment's LD_LIBRARY_PATH): every library resolves, each
      inside one of the DIRs, or is the C/C++ runtime's (glibc, libstdc++, libgcc_s) or the
      NVIDIA driver's, which come from the machine itself
  runtime.py bundle-libs BINARY DIR...
      the paths of the libraries BINARY loads from outside the DIRs that are not the C/C++
      runtime's: what a bundle has to carry beside LibTorch and CUDA
"""
import argparse
import os
import re
import struct
import subprocess
import sys

# The C and C++ runtime: every GPU machine has its own, and glibc's must be the machine's.
RUNTIME = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libdl.so.2",
           "libpthread.so.0", "librt.so.1", "libresolv.so.2", "libutil.so.1", "libstdc++.so.6",
           "libgcc_s.so.1"}
DRIVER = re.compile(r"^lib(cuda|nvidia-[a-z0-9-]+)\.so(\.\d+)*$")
CUDART = re.compile(r"^libcudart(-[0-9a-f]+)?\.so\.(\d+)$")
VERSION_FILES = ("version.py", "build-version", "include/torch/headeronly/version.h",
                 "include/torch/csrc/api/include/torch/version.h")


class Failed(Exception):
    pass


class Unusable(Exception):
    pass


def parse_version_file(name, text):
    """The torch version a version file states, or None."""
    if name == "version.py":
        m = re.search(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", text, re.M)
        return m and m.group(1)
    if name == "build-version":
        return text.strip() or None
    parts = [re.search(r"#define TORCH_VERSION_%s (\d+)" % p, text) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else None


def needed(path):
    """The DT_NEEDED names of a 64-bit little-endian ELF shared object."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            raise Unusable("%s is not a 64-bit little-endian ELF file" % path)
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        loads, dynamic = [], None
        for i in range(phnum):
            kind, _, offset, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
            if kind == 1:
                loads.append((vaddr, offset, filesz))
            elif kind == 2:
                dynamic = (offset, filesz)
        if dynamic is None:
            return []
        f.seek(dynamic[0])
        raw = f.read(dynamic[1])
        entries = [struct.unpack_from("<qQ", raw, i) for i in range(0, len(raw) - 15, 16)]
        strtab = next((v for tag, v in entries if tag == 5), None)
        names = [v for tag, v in entries if tag == 1]
        base = next((off + strtab - va for va, off, size in loads if va <= strtab < va + size), None)
        if base is None:
            raise Unusable("%s: no string table in a loaded segment" % path)
        result = []
        for offset in names:
            f.seek(base + offset)
            result.append(f.read(256).split(b"\0", 1)[0].decode())
        return result


def cuda_major(names):
    """The CUDA major version of the libcudart among DT_NEEDED names, or None."""
    for name in names:
        m = CUDART.match(name)
        if m:
            return m.group(2)
    return None


def torch_of(folder):
    version = None
    for name in VERSION_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                version = parse_version_file(os.path.basename(name), f.read())
            if version:
                break
    if not version:
        raise Failed("cannot tell the torch version of %s (none of %s)" % (folder, ", ".join(VERSION_FILES)))
    cuda_lib = os.path.join(folder, "lib", "libtorch_cuda.so")
    cuda = cuda_major(needed(cuda_lib)) if os.path.isfile(cuda_lib) else None
    return version, cuda


def matches(want_version, want_cuda, have_version, have_cuda):
    """None when the torch found fits the one petname was built against, else the mismatch."""
    def major_minor(v):
        m = re.match(r"(\d+)\.(\d+)", v)
        return m and (int(m.group(1)), int(m.group(2)))
    problems = []
    if major_minor(have_version) != major_minor(want_version):
        problems.append("torch %s" % have_version)
    if have_cuda != want_cuda:
        problems.append("CUDA %s" % have_cuda if have_cuda else "no CUDA (no libtorch_cuda.so)")
    if not problems:
        return None
    want = "%d.%d" % major_minor(want_version)
    return "is %s; petname here was built against torch %s with CUDA %s" % (
        " with ".join(problems), want, want_cuda)


LDD_LINE = re.compile(r"^\s*(\S+)(?:\s+=>\s+(not found|\S+))?(?:\s+\(0x[0-9a-f]+\))?\s*$")
VERSION_ERROR = re.compile(r"version `([^']+)' not found \(required by ([^)]+)\)")


def parse_ldd(text):
    """[(name, path or None)] of ldd's lines, and its `version ... not found` complaints."""
    libraries, errors = [], []
    for line in text.splitlines():
        v = VERSION_ERROR.search(line)
        if v:
            errors.append("%s needs %s" % (os.path.basename(v.group(2)), v.group(1)))
            continue
        m = LDD_LINE.match(line)
        if not m:
            continue
        name, path = m.group(1), m.group(2)
        if path is None:  # "linux-vdso.so.1 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
            name, path = os.path.basename(name), name if "/" in name else None
        libraries.append((name, None if path == "not found" else path))
    return libraries, errors


def inside(path, folders):
    candidates = {os.path.abspath(path), os.path.realpath(path)}
    for folder in folders:
        for root in {os.path.abspath(folder), os.path.realpath(folder)}:
            if any(c.startswith(root.rstrip("/") + "/") for c in candidates):
                return True
    return False


def classify(libraries, folders):
    """(missing names, [(name, path)] resolved outside the folders) of ldd's libraries, leaving out
    the C/C++ runtime's and the driver's, which belong to the machine."""
    missing, outside = [], []
    for name, path in libraries:
        if name in RUNTIME or DRIVER.match(name):
            continue
        if path is None:
            missing.append(name)
        elif not inside(path, folders):
            outside.append((name, path))
    return missing, outside


def ldd(binary):
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if r.returncode != 0 and "=>" not in r.stdout:
        raise Unusable("ldd %s: %s" % (binary, (r.stderr or r.stdout).strip().splitlines()[-1:]))
    return parse_ldd(r.stdout + "\n" + r.stderr)


def cmd_torch(args):
    version, cuda = torch_of(args.dir)
    return "%s %s" % (version, cuda or "none")


def cmd_match(args):
    version, cuda = torch_of(args.dir)
    problem = matches(args.version, args.cuda, version, cuda)
    if problem:
        raise Failed("the torch at %s %s" % (args.dir, problem))
    return "torch %s with CUDA %s at %s" % (version, cuda, args.dir)


def problems(libraries, errors, folders):
    """What keeps ldd's libraries from being the bundle's, torch's and the machine's runtime's."""
    missing, outside = classify(libraries, folders)
    found = (["%s not found" % n for n in missing] + ["%s only at %s" % (n, p) for n, p in outside]
             + errors)
    return list(dict.fromkeys(found))  # ldd names a missing library once per object needing it


def cmd_resolve(args):
    libraries, errors = ldd(args.binary)
    found = problems(libraries, errors, args.dirs)
    if found:
        raise Failed("%s: %s (looked in %s)" % (args.binary, "; ".join(found), " ".join(args.dirs)))
    return "%s: %d libraries resolve, each from %s or the C/C++ runtime" % (
        args.binary, len(libraries), " ".join(args.dirs))


def cmd_bundle_libs(args):
    libraries, errors = ldd(args.binary)
    missing, outside = classify(libraries, args.dirs)
    if missing or errors:
        raise Failed("%s: %s" % (args.binary, "; ".join(["%s not found" % n for n in missing] + errors)))
    return "\n".join(path for _, path in outside)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("torch")
    t.add_argument("dir")
    t.set_defaults(run=cmd_torch)
    m = sub.add_parser("match")
    m.add_argument("version")
    m.add_argument("cuda")
    m.add_argument("dir")
    m.set_defaults(run=cmd_match)
    for name, run in (("resolve", cmd_resolve), ("bundle-libs", cmd_bundle_libs)):
        r = sub.add_parser(name)
        r.add_argument("binary")
        r.add_argument("dirs", nargs="+")
        r.set_defaults(run=run)
    args = p.parse_args()
    try:
        out = args.run(args)
    except Failed as e:
        print(e)
        return 1
    except (Unusable, OSError) as e:
        print(e)
        return 2
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
