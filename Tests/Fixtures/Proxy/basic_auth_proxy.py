#!/usr/bin/env python3
"""A forwarding HTTP proxy that asks for a Basic user name and password the way squid does: 407
with Proxy-Authenticate to a request without them or with wrong ones (tinyproxy answers a wrong
one with 401 instead), and forwards a request with the right ones (plain http, and CONNECT
tunnels). Listens on 127.0.0.1 on a free port and prints that port on its first line.

Usage: basic_auth_proxy.py USER PASSWORD LOG
LOG gets one line per request: `METHOD URL with` (forwarded), `METHOD URL wrong` (refused: wrong
credential) or `METHOD URL without` (refused: none)."""
import base64
import http.client
import http.server
import select
import socket
import sys
import urllib.parse

USER, PASSWORD, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
EXPECTED = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer",
              "transfer-encoding", "upgrade", "content-length"}


def record(line):
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(line + "\n")


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else None

    def authorized(self):
        given = self.headers.get("Proxy-Authorization")
        if given == EXPECTED:
            return True
        record(f"{self.command} {self.path} {'wrong' if given else 'without'}")
        text = b"Proxy Authentication Required"
        self.send_response(407)
        self.send_header("Proxy-Authenticate", 'Basic realm="Squid-like test proxy"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)
        return False

    def forward(self):
        body = self.body()
        if not self.authorized():
            return
        record(f"{self.command} {self.path} with")
        url = urllib.parse.urlsplit(self.path)
        upstream = http.client.HTTPConnection(url.hostname, url.port or 80, timeout=60)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
        path = url.path or "/"
        if url.query:
            path += "?" + url.query
        try:
            upstream.request(self.command, path, body=body, headers=headers)
            response = upstream.getresponse()
            data = response.read()
        except OSError as error:
            text = f"upstream: {error}".encode()
            self.send_response(502)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        finally:
            upstream.close()
        self.send_response_only(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_CONNECT(self):
        if not self.authorized():
            return
        record(f"CONNECT {self.path} with")
        host, _, port = self.path.rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=60)
        except OSError:
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = True
        sockets = [self.connection, upstream]
        try:
            while True:
                readable, _, _ = select.select(sockets, [], [], 60)
                if not readable:
                    break
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = forward

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
