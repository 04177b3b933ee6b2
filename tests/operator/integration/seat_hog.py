#!/usr/bin/env python3
"""Holds an API Priority and Fairness seat of one user (for throttle_apf_test.sh).

    seat_hog.py SERVER_URL CA CLIENT_CERT CLIENT_KEY NAMESPACE

Sends, as the client certificate's user, a POST of a ConfigMap whose body never arrives: the
kube-apiserver admits the request into the user's priority level before its handler reads the
body, so the request keeps executing (and holding its seat) until the server answers it (its
request timeout). It is then sent again on a new connection, until the process is killed. With a priority level of zero nominal seats
that rejects (limitResponse Reject), the server answers every other request of that priority
level with 429 and Retry-After while this one is held.
"""

import socket
import ssl
import sys
import urllib.parse


def hold(url, tls, namespace):
    with socket.create_connection((url.hostname, url.port)) as raw:
        with tls.wrap_socket(raw, server_hostname=url.hostname) as s:
            s.sendall(f"POST /api/v1/namespaces/{namespace}/configmaps HTTP/1.1\r\n"
                      f"Host: {url.netloc}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 1000\r\n\r\n{".encode())
            s.recv(65536)  # an answer (or the end of the connection): the seat is free


def main():
    server, ca, cert, key, namespace = sys.argv[1:6]
    tls = ssl.create_default_context(cafile=ca)
    tls.load_cert_chain(cert, key)
    url = urllib.parse.urlsplit(server)
    while True:
        hold(url, tls, namespace)


if __name__ == "__main__":
    main()
