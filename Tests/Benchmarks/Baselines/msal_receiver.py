#!/usr/bin/env python3
"""The loopback baseline from MSAL for Python: its AuthCodeReceiver (which accepts the response
only as a form_post), with nothing of WebviewHost. For each of N sessions it starts a receiver on
a port the kernel picks, a thread POSTs the callback, and get_auth_response returns: that is where
a caller would go on. Prints, per session (CLOCK_MONOTONIC nanoseconds, as the others):

    callback <sent> <resumed>

usage: msal_receiver.py <sessions>
"""
import socket
import sys
import threading
import time

from msal.oauth2cli.authcode import AuthCodeReceiver


def send_callback(port, sent):
    time.sleep(0.02)
    body = b"code=the-code&state=s"
    request = (b"POST /callback HTTP/1.1\r\nHost: localhost:%d\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, len(body))) + body
    with socket.create_connection(("127.0.0.1", port)) as connection:
        sent.append(time.monotonic_ns())
        connection.sendall(request)
        while connection.recv(4096):
            pass


def main():
    sessions = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for _ in range(sessions):
        with AuthCodeReceiver(port=0) as receiver:
            sent = []
            sender = threading.Thread(target=send_callback, args=(receiver.get_port(), sent))
            sender.start()
            result = receiver.get_auth_response(timeout=30, state="s")
            resumed = time.monotonic_ns()
            sender.join()
            if not result or result.get("code") != "the-code":
                print("error %r" % (result,), flush=True)
                return 1
            print("callback %d %d" % (sent[0], resumed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
