#!/usr/bin/env python3
"""Sends hostile request heads to a petname HTTP server (common/http/server.h) and checks each answer.

usage: hostile_requests.py [--wait SECONDS] PORT PATH [PATH ...]

For each PATH a plain GET is the baseline (its status and body length). Then each case below,
on a connection of its own from 127.0.0.1, read until the server closes it:
- refused with 400 at once: a head with a line ended by a bare LF, followed by a Range header of
  2,000 ranges, each the whole body (cpp-httplib skips lines that do not end in CRLF and reads
  on, so such a Range reached it past a filter that took the bare LF for the end of the head);
  a head of bare LFs only; a bare CR inside a line; a Range header folded over continuation
  lines; a space between a header's name and its colon;
- answered like the plain GET (same status, no Content-Encoding, Content-Length the body's
  length, the body once: at most 1 KiB longer than the longer of the plain GETs just before and
  just after it, as a trainer's exposition grows while it trains): a Range header of 2,000
  ranges, and Accept-Encoding br, gzip and both.
One line per case on stdout; exit 1 when a case failed, 2 for bad arguments or when the server
never answered the plain GET (within --wait seconds, default 0: one try).
"""
import argparse
import socket
import sys
import time

RANGES = "bytes=0-" + ",0-" * 1999  # 2,000 ranges, each the whole body


def refused(head):
    return ("400", head)


def like_plain(head):
    return ("plain", head)


def cases(path):
    get = f"GET {path} HTTP/1.1\r\n"
    return [
        ("bare LF then 2,000 ranges", refused(f"{get}Host: x\n\nRange: {RANGES}\r\n\r\n")),
        ("bare LFs only", refused(f"GET {path} HTTP/1.1\nHost: x\n\n")),
        ("bare CR then 2,000 ranges", refused(f"{get}Host: x\rRange: {RANGES}\r\n\r\n")),
        ("folded Range", refused(f"{get}Host: x\r\nRange: bytes=0-,\r\n 0-,\r\n\t0-\r\n\r\n")),
        ("space before the colon", refused(f"{get}Host: x\r\nRange : {RANGES}\r\n\r\n")),
        ("2,000 ranges", like_plain(f"{get}Host: x\r\nRange: {RANGES}\r\n\r\n")),
        ("Accept-Encoding br", like_plain(f"{get}Host: x\r\nAccept-Encoding: br\r\n\r\n")),
        ("Accept-Encoding gzip", like_plain(f"{get}Host: x\r\nAccept-Encoding: gzip\r\n\r\n")),
        ("Accept-Encoding gzip, br", like_plain(
            f"{get}Host: x\r\naccept-encoding: gzip;q=0.5, br;q=1\r\n\r\n")),
    ]


def exchange(port, head):
    """The server's whole answer to `head` (bytes), b"" when it closed or reset unanswered."""
    answer = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(head.encode("latin-1"))
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return answer
                answer += chunk
    except OSError:
        return b""


def parse(answer):
    """(status, headers as a lower-cased dict, body), or None when `answer` is not an HTTP answer."""
    head, sep, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return parts[1], headers, body


def plain_get(port, path):
    return parse(exchange(port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"))


def check(port, path, baseline, expected, head):
    answer = exchange(port, head)
    parsed = parse(answer)
    if parsed is None:
        return "no answer (closed or reset unanswered)"
    status, headers, body = parsed
    if expected == "400":
        return None if status == "400" else f"status {status} ({len(answer)} bytes), expected 400"
    after = plain_get(port, path)
    plain_status, plain_length = baseline
    if after is not None:
        plain_length = max(plain_length, len(after[2]))
    if status != plain_status:
        return f"status {status}, expected {plain_status} as for a plain GET"
    if "content-encoding" in headers:
        return f"Content-Encoding: {headers['content-encoding']}"
    if headers.get("content-length") != str(len(body)):
        return f"Content-Length {headers.get('content-length')} for a body of {len(body)} bytes"
    if len(body) > plain_length + 1024:
        return f"a body of {len(body)} bytes for {plain_length} in a plain GET"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wait", type=float, default=0)
    parser.add_argument("port", type=int)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    failed = 0
    for path in args.paths:
        deadline = time.monotonic() + args.wait
        plain = plain_get(args.port, path)
        while plain is None and time.monotonic() < deadline:
            time.sleep(0.2)
            plain = plain_get(args.port, path)
        if plain is None:
            print(f"{path}: the plain GET got no answer", file=sys.stderr)
            return 2
        baseline = (plain[0], len(plain[2]))
        for name, (expected, head) in cases(path):
            problem = check(args.port, path, baseline, expected, head)
            print(f"{path} {name}: {'ok' if problem is None else 'FAILED: ' + problem}")
            failed |= problem is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
