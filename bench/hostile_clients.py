#!/usr/bin/env python3
"""Hostile clients against the trainer's /metrics server (common/http/server.h).

For each scenario, and each petname binary in turn (LABEL=PATH), starts `petname train` on a
small slice of the data with --metrics-port, lets bad clients of one kind loose from other
loopback addresses than the scraper's (127.0.0.2 and up; all of 127.0.0.0/8 is loopback), and
meanwhile scrapes /metrics from 127.0.0.1 as Prometheus would (one request at a time, each given
--scrape-timeout seconds). Reports the scrapes answered in full out of --scrapes, the largest
answer a range-flood client got, and the trainer's peak resident memory (VmHWM) before the
attack and at its end.

Scenarios: range (clients asking for 1,501 byte ranges of /metrics, reading every answer),
never-read (clients that send a request and never read the answer; reconnect once closed),
idle (connections that send nothing; reopened once closed), idle-peers (as idle, spread over 19
addresses), drip (a request line, then a header byte every 0.5 s), all (every kind at once).

usage: hostile_clients.py --data FILE [--scrapes M] [--clients N] [--idle N] [--scenarios ...]
                          LABEL=PETNAME ...
"""
import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

RANGES = "bytes=0-" + ",0-" * 1500  # 1,501 ranges, each the whole body
SCENARIOS = ["range", "never-read", "idle", "idle-peers", "drip", "all"]


def connect(port, source, timeout=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    return s


def closed_by_server(s):
    """True when the server closed or reset `s` (without reading what it sent)."""
    p = select.poll()
    p.register(s, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    return bool(p.poll(0))


def get(port, source, path, headers="", timeout=10.0):
    """Sends a GET and reads the answer until the server closes; b"" on failure."""
    s = connect(port, source, timeout)
    if s is None:
        return b""
    data = b""
    deadline = time.monotonic() + timeout
    try:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk
    except OSError:
        pass
    finally:
        s.close()
    return b""  # not whole within the timeout, or reset


class Attack:
    def __init__(self, port, kinds, clients, idle):
        self.port, self.kinds, self.clients, self.idle = port, kinds, clients, idle
        self.stop = threading.Event()
        self.largest_range_answer = 0
        self.threads = []

    def start(self):
        for kind in self.kinds:
            if kind == "range":
                for i in range(self.clients):
                    self.threads.append(threading.Thread(target=self.range_flood))
            elif kind == "never-read":
                self.held(self.clients, ["127.0.0.3"], True)
            elif kind == "idle":
                self.held(self.idle, ["127.0.0.4"], False)
            elif kind == "idle-peers":
                self.held(self.idle, [f"127.0.1.{i}" for i in range(1, 20)], False)
            elif kind == "drip":
                self.threads.append(threading.Thread(target=self.drip))
        for t in self.threads:
            t.start()

    def held(self, n, sources, send_request):
        self.threads.append(threading.Thread(target=self.hold, args=(n, sources, send_request)))

    def end(self):
        self.stop.set()
        for t in self.threads:
            t.join()

    def range_flood(self):
        while not self.stop.is_set():
            answer = get(self.port, "127.0.0.2", "/metrics", f"Range: {RANGES}\r\n", timeout=10)
            self.largest_range_answer = max(self.largest_range_answer, len(answer))

    def hold(self, n, sources, send_request):
        """Keeps `n` connections open (requests sent, never read, when `send_request`)."""
        held = [None] * n
        while not self.stop.is_set():
            for i in range(n):
                s = held[i]
                if s is not None and not closed_by_server(s):
                    continue
                if s is not None:
                    s.close()
                s = connect(self.port, sources[i % len(sources)], timeout=0.5)
                if s is not None and send_request:
                    try:
                        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                    except OSError:
                        s.close()
                        s = None
                held[i] = s
                if self.stop.is_set():
                    break
            self.stop.wait(0.1)
        for s in held:
            if s is not None:
                s.close()

    def drip(self):
        held = [None] * self.clients
        while not self.stop.is_set():
            for i in range(self.clients):
                s = held[i]
                try:
                    if s is None:
                        s = connect(self.port, "127.0.0.5", timeout=0.5)
                        if s is not None:
                            s.sendall(b"GET /metrics HTTP/1.1\r\n")
                    else:
                        s.sendall(b"X")
                except OSError:
                    s.close()
                    s = None
                held[i] = s
            self.stop.wait(0.5)
        for s in held:
            if s is not None:
                s.close()


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(label, binary, scenario, args):
    port = free_port()
    cmd = [binary, "train", "--data", args.data, "--max-names", "200", "--threads", "1",
           "--batch-size", "128", "--epochs", "100000", "--metrics-port", str(port),
           "--metrics-address", "127.0.0.1"]
    trainer = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        body = b""
        while time.monotonic() < deadline and b"petname_train" not in body:
            time.sleep(0.2)
            body = get(port, "127.0.0.1", "/metrics", timeout=5)
        if b"petname_train" not in body:
            print(f"{label} {scenario}: the trainer's /metrics never answered", file=sys.stderr)
            return 1
        exposition = len(body.split(b"\r\n\r\n", 1)[1])
        hwm_before = vm_hwm_kib(trainer.pid)
        kinds = ["range", "never-read", "idle", "drip"] if scenario == "all" else [scenario]
        attack = Attack(port, kinds, args.clients, args.idle)
        attack.start()
        time.sleep(args.settle)
        answered = 0
        for _ in range(args.scrapes):
            answer = get(port, "127.0.0.1", "/metrics", timeout=args.scrape_timeout)
            if answer.startswith(b"HTTP/1.1 200") and b"petname_train" in answer:
                answered += 1
            time.sleep(args.interval)
        hwm_after = vm_hwm_kib(trainer.pid)
        attack.end()
        line = (f"{label:<8} {scenario:<11} scrapes {answered}/{args.scrapes}  "
                f"exposition {exposition} B  largest range answer {attack.largest_range_answer} B  "
                f"VmHWM {hwm_before / 1024:.0f} -> {hwm_after / 1024:.0f} MiB")
        print(line, flush=True)
        return 0
    finally:
        trainer.send_signal(signal.SIGKILL)
        trainer.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--data", required=True)
    parser.add_argument("--scrapes", type=int, default=10)
    parser.add_argument("--scrape-timeout", type=float, default=10.0)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between scrapes")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds of attack before scraping")
    parser.add_argument("--clients", type=int, default=8, help="bad clients of each kind")
    parser.add_argument("--idle", type=int, default=150, help="idle connections")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("binaries", nargs="+", metavar="LABEL=PETNAME")
    args = parser.parse_args()
    scenarios = args.scenarios.split(",")
    bad = [s for s in scenarios if s not in SCENARIOS]
    if bad:
        print(f"hostile_clients.py: unknown scenario {bad[0]} (known: {', '.join(SCENARIOS)})",
              file=sys.stderr)
        return 2
    binaries = []
    for spec in args.binaries:
        label, sep, path = spec.partition("=")
        if not sep or not os.access(path, os.X_OK):
            print(f"hostile_clients.py: {spec}: not LABEL=PATH of an executable petname",
                  file=sys.stderr)
            return 2
        binaries.append((label, path))
    failed = 0
    for scenario in scenarios:
        for label, path in binaries:
            failed |= run(label, path, scenario, args)
    return failed


if __name__ == "__main__":
    sys.exit(main())
