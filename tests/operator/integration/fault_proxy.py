#!/usr/bin/env python3
"""A fault-injecting HTTPS proxy in front of the real kube-apiserver (for throttle_test.sh,
list_expired_test.sh and watch_errors_test.sh).

    fault_proxy.py --port PORT --upstream https://HOST:PORT --cert CRT --key KEY --ca CA
                   --client-cert CRT --client-key KEY --control DIR

Terminates TLS on 127.0.0.1:PORT with CRT/KEY (a serving certificate of the test CA) and forwards
each request to the upstream API server, authenticating there with the client certificate.
Streamed (chunked) answers such as watches are passed on chunk by chunk as they arrive.

Writes (POST, PUT, PATCH, DELETE) are faulted as DIR/fault says, read for every request; one line:
    CODE [RETRY_AFTER|-] [forward]
e.g. "429 1": answer 429 with "Retry-After: 1" without forwarding; "503 -": 503 without
Retry-After; "500 1 forward": forward the write and, when the server applied it (2xx), answer 500
with Retry-After 1 instead (a lost answer; the server's refusals, e.g. 409, pass). No file or an
empty one: no faults.
Reads and watches pass, except pages of paged lists (GETs with a continue parameter) while
DIR/page_fault holds a code, e.g. "410": the first such GET of each collection (path and
labelSelector) is answered with it (a 410 as the API server gives for an expired continue token),
the rest are forwarded. Watches (GETs with watch=true) pass, except while DIR/watch_fault holds
"garbage" or "drop": the first watch of each collection (path and labelSelector) for that word
is forwarded, and once the upstream's 200 and headers are relayed the proxy sends a line that is
not a watch event and ends the stream ("garbage"), or closes the connection in the middle of the
chunked stream ("drop"). Every request is appended to DIR/requests.log as
    METHOD PATH UPSTREAM_CODE ANSWERED_CODE
(UPSTREAM_CODE "-" when it was not forwarded) once it was answered (watches: once they start).
"""

import argparse
import http.client
import http.server
import json
import os
import socket
import ssl
import threading
import urllib.parse

WRITES = {"POST", "PUT", "PATCH", "DELETE"}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
              "proxy-connection", "content-length", "host"}
REASONS = {410: "Expired", 429: "TooManyRequests", 500: "InternalError",
           503: "ServiceUnavailable"}


def read_fault(control):
    try:
        with open(os.path.join(control, "fault"), encoding="utf-8") as f:
            words = f.read().split()
    except FileNotFoundError:
        return None
    if not words:
        return None
    retry_after = words[1] if len(words) > 1 and words[1] != "-" else None
    return int(words[0]), retry_after, "forward" in words[2:]


def read_page_fault(control):
    try:
        with open(os.path.join(control, "page_fault"), encoding="utf-8") as f:
            words = f.read().split()
    except FileNotFoundError:
        return None
    return int(words[0]) if words else None


def read_watch_fault(control):
    try:
        with open(os.path.join(control, "watch_fault"), encoding="utf-8") as f:
            words = f.read().split()
    except FileNotFoundError:
        return None
    return words[0] if words and words[0] in ("garbage", "drop") else None


def watched(path):
    """The collection a watch reads (path and labelSelector), or None for other requests."""
    url = urllib.parse.urlsplit(path)
    query = urllib.parse.parse_qs(url.query)
    if query.get("watch", [""])[0] not in ("true", "1"):
        return None
    return url.path, tuple(query.get("labelSelector", []))


def collection(path):
    """The collection a paged GET reads (path and labelSelector), or None for other requests."""
    url = urllib.parse.urlsplit(path)
    query = urllib.parse.parse_qs(url.query)
    if "continue" not in query:
        return None
    return url.path, tuple(query.get("labelSelector", []))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "petname-fault-proxy"

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
        del format, args  # requests.log is the record

    def record(self, upstream, answered):
        line = f"{self.command} {self.path} {upstream} {answered}\n"
        with self.server.log_lock, open(self.server.log_path, "a", encoding="utf-8") as f:
            f.write(line)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.command == "GET" and self.page_fault():
            return
        fault = read_fault(self.server.control) if self.command in WRITES else None
        if fault is not None and not fault[2]:
            self.record("-", fault[0])
            self.answer_fault(*fault[:2])
            return
        upstream = self.server.connect()
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            upstream.request(self.command, self.path, body=body, headers=headers)
            resp = upstream.getresponse()
            if fault is not None and resp.status < 300:
                resp.read()
                self.record(resp.status, fault[0])
                self.answer_fault(*fault[:2])
                return
            self.record(resp.status, resp.status)
            watch_fault = self.watch_fault() if self.command == "GET" else None
            if watch_fault is not None and resp.status == 200 and resp.chunked:
                self.break_watch(resp, watch_fault)
                return
            self.relay(resp)
        finally:
            upstream.close()

    def page_fault(self):
        """Answers the first paged GET of each collection as DIR/page_fault says; True if it did."""
        page = collection(self.path)
        code = read_page_fault(self.server.control) if page is not None else None
        if code is None:
            return False
        with self.server.log_lock:
            if page in self.server.paged:
                return False
            self.server.paged.add(page)
        self.record("-", code)
        self.answer_fault(code, None)
        return True

    def watch_fault(self):
        """The fault for this request if it is the first watch of its collection since
        DIR/watch_fault named it, else None."""
        what = watched(self.path)
        fault = read_watch_fault(self.server.control) if what is not None else None
        if fault is None:
            return None
        with self.server.log_lock:
            if (what, fault) in self.server.watch_faulted:
                return None
            self.server.watch_faulted.add((what, fault))
        return fault

    def break_watch(self, resp, fault):
        self.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if fault == "garbage":
            line = b"this is not a watch event\n"
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(line), line))
        else:
            self.wfile.write(b"40\r\n{\"type\":\"ADDED\"")  # a chunk cut short
        self.wfile.flush()
        self.close_connection = True
        if fault == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)

    def answer_fault(self, code, retry_after):
        status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": "injected by fault_proxy", "reason": REASONS.get(code, ""),
                  "code": code}
        data = json.dumps(status).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(data)

    def relay(self, resp):
        self.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() not in HOP_BY_HOP:
                self.send_header(k, v)
        if resp.chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        else:
            data = resp.read()
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


class Proxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, args):
        super().__init__(("127.0.0.1", args.port), Handler)
        serving = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        serving.load_cert_chain(args.cert, args.key)
        self.socket = serving.wrap_socket(self.socket, server_side=True)
        self.client_tls = ssl.create_default_context(cafile=args.ca)
        self.client_tls.load_cert_chain(args.client_cert, args.client_key)
        self.upstream = urllib.parse.urlsplit(args.upstream)
        self.control = args.control
        self.log_path = os.path.join(args.control, "requests.log")
        self.log_lock = threading.Lock()
        self.paged = set()  # collections whose first paged GET was faulted
        self.watch_faulted = set()  # (collection, fault) pairs whose first watch was faulted

    def connect(self):
        return http.client.HTTPSConnection(self.upstream.hostname, self.upstream.port,
                                           context=self.client_tls, timeout=3600)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--upstream", "--cert", "--key", "--ca", "--client-cert", "--client-key",
                 "--control"):
        p.add_argument(flag, required=True)
    p.add_argument("--port", type=int, required=True)
    Proxy(p.parse_args()).serve_forever()


if __name__ == "__main__":
    main()
