#!/usr/bin/env python3
"""A proxy that asks for a password and refuses every one (407 each time, as squid does for a
wrong password; tinyproxy answers a wrong one with 401 instead). Listens on 127.0.0.1 on a free
port, prints that port on its first line, and appends each request's
method, URL and whether it carried Proxy-Authorization to the log file given."""
import http.server
import sys


class Refusing(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def refuse(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with open(sys.argv[1], "a", encoding="utf-8") as log:
            log.write(f"{self.command} {self.path} {'with' if self.headers.get('Proxy-Authorization') else 'without'}\n")
        body = b"Proxy Authentication Required"
        self.send_response(407)
        self.send_header("Proxy-Authenticate", 'Basic realm="Refusing test proxy"')
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_CONNECT = refuse

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
print(server.server_address[1], flush=True)
server.serve_forever()
