#!/usr/bin/env python3
"""Where a command's CPU goes: the CPU seconds of every process it (and anything else on the
machine) ran, by command name, from Linux's BSD process accounting (acct(2), format v3).

  python3 bench/cpu_by_command.py [--top N] [--short NAMES] -- COMMAND...
      turns process accounting on (root), runs COMMAND, turns it off, prints the table
  python3 bench/cpu_by_command.py [--top N] [--short NAMES] --file PACCT
      the table of an accounting file already written

A process is counted when it exits, with the user and system CPU it used, so a daemon that
outlives COMMAND is missing and a process that started before it is counted whole. Accounting is
machine-wide: what else runs meanwhile is counted too. --short NAMES (comma-separated command
names, as the kernel truncates them to 15 characters) adds how many of those processes used less
than 0.7 s of CPU, and how much CPU they used in all: for a binary that loads a large library at
start, the runs that did little more than start.
"""
import argparse
import collections
import ctypes
import os
import struct
import subprocess
import sys
import tempfile

# struct acct_v3 (linux/acct.h): flag, version, tty, exitcode, uid, gid, pid, ppid, btime,
# etime (float), utime, stime, mem, io, rw, minflt, majflt, swaps (comp_t), comm[16].
RECORD = struct.Struct("<BBHIIIIIIf8H16s")
SHORT_CPU_S = 0.7


def comp_t(value):
    """A comp_t: 13-bit mantissa, 3-bit base-8 exponent, in clock ticks (AHZ = 100)."""
    return ((value & 0x1FFF) << (3 * ((value >> 13) & 7))) / 100


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    for offset in range(0, len(data) - RECORD.size + 1, RECORD.size):
        field = RECORD.unpack_from(data, offset)
        if field[1] != 3:
            continue
        yield field[18].split(b"\0")[0].decode(errors="replace"), comp_t(field[10]) + comp_t(field[11])


def accounted(command, path):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.acct(path.encode()) != 0:
        sys.exit(f"cpu_by_command: acct({path}): {os.strerror(ctypes.get_errno())} (needs root)")
    try:
        return subprocess.run(command, check=False).returncode
    finally:
        libc.acct(None)


def report(path, top, short):
    cpu = collections.Counter()
    count = collections.Counter()
    quick = collections.Counter()
    quick_cpu = collections.Counter()
    for name, seconds in records(path):
        cpu[name] += seconds
        count[name] += 1
        if name in short and seconds < SHORT_CPU_S:
            quick[name] += 1
            quick_cpu[name] += seconds
    print(f"cpu_by_command: {sum(count.values())} processes, {sum(cpu.values()):.0f} CPU-s in all")
    print(f"{'CPU-s':>9} {'share':>6} {'processes':>9}  command")
    total = sum(cpu.values()) or 1
    for name, seconds in cpu.most_common(top):
        print(f"{seconds:9.1f} {100 * seconds / total:5.1f}% {count[name]:9d}  {name}")
    for name in short:
        print(f"{name}: {quick[name]} of {count[name]} processes used less than {SHORT_CPU_S} CPU-s "
              f"each, {quick_cpu[name]:.1f} CPU-s in all")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--short", default="", help="comma-separated command names")
    parser.add_argument("--file", help="an accounting file to read instead of running COMMAND")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if bool(args.file) == bool(command):
        parser.error("give either --file PACCT or -- COMMAND...")
    short = [n for n in args.short.split(",") if n]
    rc = 0
    if args.file:
        report(args.file, args.top, short)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pacct")
            open(path, "wb").close()
            rc = accounted(command, path)
            report(path, args.top, short)
    return rc


if __name__ == "__main__":
    sys.exit(main())
