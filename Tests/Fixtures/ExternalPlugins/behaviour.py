#!/usr/bin/env python3
"""An external provider for the tests: it speaks the protocol (ExternalProviders.md) well, or
breaks it in one chosen way.

    behaviour.py MODE [--grandchild]

Modes:
  autopilot          a user agent that follows the page: for a present URL whose query has
                     mode=ok it reports didStartLoad, didFinishLoad and the redirect to the
                     prepared redirect URI with code=external&state=<state>; mode=wait shows
                     the page and waits; mode=fail reports fail(network); mode=handover reports
                     didStartLoad, then handOverToSystemBrowser (reason webAuthn) when present
                     says canHandOverToSystemBrowser, else didFinishLoad and waits (a page
                     whose passkey step is hidden); mode=handover-custom asks with the reason
                     deviceCompliance, a page URL and a detail of 2 000 characters on several
                     lines; mode=handover-bare with the reason alone; mode=handover-HOW sends
                     a malformed hand-over (HOW: long-reason, odd-reason, detail-number,
                     bad-url, truncated).
  loopback-port      autopilot, but prepares the requested loopback redirect URI on port 50123
  other-redirect     prepares a redirect URI on another host
  crash-at-start     exits with status 3 before the handshake
  crash-after-prepare  handshake and prepared, then exits with status 5 when asked to present
  garbage            answers the handshake with a line that is not JSON
  oversized          answers the handshake with 200 000 bytes and no newline
  flood              answers present with didStartLoad as fast as it can
  silent             reads everything, answers nothing, ignores SIGTERM
  wrong-version      answers the handshake with protocol version 99
  early-event        sends didStartLoad before it is asked to present
  early-handover     sends handOverToSystemBrowser before it is asked to present
  foreign-redirect   answers present with a redirect to another redirect URI
  broker             answers present with switchToBroker msauth://broker/authorize; answers
                     brokerUnavailable with fail(code brokerUnavailable)
  late               answers present with the redirect, then ignores dismiss and keeps
                     writing redirects and garbage until it is killed
  exit-holding-output  answers present by starting `sleep 300` in the background with its
                     standard output (a browser launched without redirecting it), then exits
                     with status 7: only the process's end says it is gone
  long-fail          answers present with fail(network) and a 60 000-character message of
                     several lines (over the old 4096-byte refusal, within the 64 KiB line)
  stop-reading       handshake and prepared, then never reads its input again (it sleeps, its
                     pipe fills with the host's present line), and ignores SIGTERM
  pieces             autopilot, but what it says is held until it waits for the host, then
                     written 5 bytes at a time (each flushed): lines arrive cut in pieces, and
                     pieces hold the end of one line and the start of the next

--grandchild starts `sleep 300` in the background first (it must die with the session).
--record FILE appends each host message's type to FILE, one a line (`present` with
canHandOverToSystemBrowser as present:true or present:false), so a test sees what the plugin
was sent.
--pids DIR writes an empty file named after its process ID (and the grandchild's) into DIR,
so that a test can check that each one was killed and reaped.
"""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse

mode = sys.argv[1]
pids = [os.getpid()]
if "--grandchild" in sys.argv:
    pids.append(subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).pid)
if "--pids" in sys.argv:
    directory = sys.argv[sys.argv.index("--pids") + 1]
    for pid in pids:
        open(os.path.join(directory, str(pid)), "w").close()


held = ""


def send(message):
    global held
    if mode == "pieces":
        held += json.dumps(message) + "\n"
        return
    try:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The host ended the session (as the misbehaving cases expect): leave quietly, without a
        # traceback in the test log that reads like a failure.
        os._exit(0)


def write_held():
    """`pieces`: what send() held, 5 bytes a write."""
    global held
    try:
        for start in range(0, len(held), 5):
            sys.stdout.write(held[start:start + 5])
            sys.stdout.flush()
            time.sleep(0.0005)
    except BrokenPipeError:
        os._exit(0)
    held = ""


def messages():
    write_held()
    for line in sys.stdin:
        line = line.strip()
        if line:
            yield json.loads(line)
        write_held()


if mode == "crash-at-start":
    sys.exit(3)
if mode == "silent":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for _ in sys.stdin:
        pass
    while True:
        time.sleep(1)

MALFORMED_HAND_OVERS = {
    "handover-long-reason": '{"type": "handOverToSystemBrowser", "reason": "%s"}' % ("r" * 65),
    "handover-odd-reason": '{"type": "handOverToSystemBrowser", "reason": "web authn!"}',
    "handover-detail-number": '{"type": "handOverToSystemBrowser", "reason": "webAuthn", "detail": 5}',
    "handover-bad-url": '{"type": "handOverToSystemBrowser", "reason": "webAuthn", "url": "not a url"}',
    "handover-truncated": '{"type": "handOverToSystemBrowser", "reason": ',
}


def record(kind):
    if "--record" in sys.argv:
        with open(sys.argv[sys.argv.index("--record") + 1], "a") as log:
            log.write(kind + "\n")


redirect = None
options = {}
for message in messages():
    kind = message["type"]
    record(kind if kind != "present" else
           "present:" + ("true" if message.get("canHandOverToSystemBrowser") else "false"))
    if kind == "hello":
        if mode == "garbage":
            sys.stdout.write("this is not JSON\n")
            sys.stdout.flush()
        elif mode == "oversized":
            sys.stdout.write("x" * 200000)
            sys.stdout.flush()
        else:
            send({"type": "hello", "protocolVersion": 99 if mode == "wrong-version" else 1,
                  "capabilities": []})
    elif kind == "prepare":
        redirect = message["redirectURI"]
        options = message["parameters"].get("options", {})
        if mode == "loopback-port":
            parts = urllib.parse.urlsplit(redirect)
            redirect = parts._replace(netloc="127.0.0.1:50123").geturl()
        elif mode == "other-redirect":
            redirect = "https://attacker.example/callback"
        if mode == "early-event":
            send({"type": "didStartLoad", "url": "https://idp.example.test/early"})
        if mode == "early-handover":
            send({"type": "handOverToSystemBrowser", "reason": "webAuthn"})
        send({"type": "prepared", "redirectURI": redirect})
        if mode == "stop-reading":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(1)
    elif kind == "present":
        url = message["url"]
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        if mode == "crash-after-prepare":
            os._exit(5)
        if mode == "exit-holding-output":
            holder = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
            if "--pids" in sys.argv:
                open(os.path.join(directory, str(holder.pid)), "w").close()
            sys.stderr.write("behaviour.py: exiting while sleep %d holds standard output\n" % holder.pid)
            os._exit(7)
        if mode == "long-fail":
            send({"type": "fail", "code": "network",
                  "message": "The page failed.\nSecond line.\n" + "x" * 60000})
            continue
        if mode == "broker":
            send({"type": "switchToBroker", "url": "msauth://broker/authorize?client=test"})
            continue
        if mode == "flood":
            while True:
                send({"type": "didStartLoad", "url": url})
        send({"type": "didStartLoad", "url": url})
        if mode == "foreign-redirect":
            send({"type": "redirect", "url": "http://127.0.0.1:9/elsewhere?code=forged"})
            continue
        page = query.get("mode", ["wait"])[0]
        if page == "ok":
            state = query.get("state", [""])[0]
            send({"type": "didFinishLoad", "url": url})
            send({"type": "redirect",
                  "url": redirect + "?" + urllib.parse.urlencode({"code": "external", "state": state})})
            if mode == "late":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    send({"type": "redirect", "url": redirect + "?code=late&state=" + state})
                    sys.stdout.write("garbage after the outcome\n")
                    sys.stdout.flush()
                    time.sleep(0.01)
        elif page == "handover" and message.get("canHandOverToSystemBrowser"):
            send({"type": "handOverToSystemBrowser", "reason": "webAuthn",
                  "detail": "the page asked for a passkey", "url": url})
        elif page == "handover-custom":
            send({"type": "handOverToSystemBrowser", "reason": "deviceCompliance",
                  "detail": "The device must be managed.\n" + "d" * 2000, "url": url})
        elif page == "handover-bare":
            send({"type": "handOverToSystemBrowser", "reason": "webAuthn"})
        elif page in MALFORMED_HAND_OVERS:
            sys.stdout.write(MALFORMED_HAND_OVERS[page] + "\n")
            sys.stdout.flush()
        elif page == "options":
            send({"type": "fail", "code": "options", "message": json.dumps(options, sort_keys=True)})
        elif page == "fail":
            send({"type": "fail", "code": "network", "message": "The test page could not be loaded."})
        else:
            send({"type": "didFinishLoad", "url": url})
    elif kind == "brokerUnavailable":
        send({"type": "fail", "code": "brokerUnavailable", "message": "No broker for " + message["url"]})
    elif kind == "dismiss":
        break
