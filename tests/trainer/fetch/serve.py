#!/usr/bin/env python3
"""A test HTTP(S) server for `petname fetch` (tests/trainer/fetch/fetch_test.sh).

usage: serve.py FILE [--cert PEM --key PEM]
Binds 127.0.0.1 on a free port, prints the port on stdout, then serves until killed:
  /data            FILE
  /flaky           503 on the first two requests, then FILE
  /missing         404
  /claims-big      a Content-Length of 1 GiB (then a short body)
  /endless         a body without Content-Length that never ends
  /trickle         a Content-Length of 1 MiB, then a byte every 100 ms (10 bytes/s) for ever
  /to-file         a redirect to file:///etc/passwd
"""
import http.server
import ssl
import sys
import time


def main():
    path = sys.argv[1]
    args = sys.argv[2:]
    with open(path, "rb") as f:
        body = f.read()
    flaky = {"count": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *a):
            sys.stderr.write("serve.py: %s\n" % (a[0] % a[1:]))

        def send(self, status, data, length=None):
            self.send_response(status)
            self.send_header("Content-Length", str(len(data) if length is None else length))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            route = self.path.split("?")[0]
            if route == "/data":
                self.send(200, body)
            elif route == "/flaky":
                flaky["count"] += 1
                if flaky["count"] <= 2:
                    self.send(503, b"busy\n")
                else:
                    self.send(200, body)
            elif route == "/claims-big":
                self.send(200, b"x" * 100, length=1 << 30)
            elif route == "/endless":
                self.send_response(200)
                self.end_headers()
                chunk = b"y" * 65536
                try:
                    while True:
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass
            elif route == "/trickle":
                self.send_response(200)
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                try:
                    while True:
                        self.wfile.write(b"z")
                        self.wfile.flush()
                        time.sleep(0.1)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass
            elif route == "/to-file":
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send(404, b"not found\n")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if args:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args[args.index("--cert") + 1], args[args.index("--key") + 1])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
