#!/usr/bin/env python3
"""Runs one real Chromium for a test desktop and makes sure nothing it started outlives it.

The desktop entry of a test desktop (Tests/Support/ScenarioSupport/ChromiumDesktop.swift) runs a small
shell wrapper that execs this with the Chromium command line, the URL last:

    chromium-session.py CONTROL_DIR chromium --headless=new ... URL

GIO starts it like any browser. It then:
  * becomes a child subreaper (PR_SET_CHILD_SUBREAPER), so every process Chromium starts, even
    one that double-forks into a session of its own (crashpad), stays its descendant;
  * starts Chromium in a process group of its own, output appended to CONTROL_DIR/chromium.log;
  * writes CONTROL_DIR/session-<pid> (one line: its pid) so that the test can end it;
  * on SIGTERM (or SIGINT, SIGHUP), or when Chromium's browser process ends by itself, ends every
    descendant (SIGTERM, then SIGKILL after a grace period) and reaps each one before exiting.
A second launch while a Chromium runs on the profile opens its URL in a new tab of the running
one, as a desktop browser's second launch does (headless Chromium has no process singleton: a
second browser on the same profile exits with "profile in use"); the new tab is opened through
the running browser's DevTools endpoint (CONTROL_DIR/profile/DevToolsActivePort), and that
launch ends at once. Each step is one JSON line in CONTROL_DIR/sessions.log.
"""
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = float(os.environ.get("WVH_CHROMIUM_GRACE", "5"))


class Stop(Exception):
    pass


def on_signal(number, frame):
    raise Stop()


def log(control, event, **fields):
    fields.update(event=event, pid=os.getpid(), time=time.time())
    with open(os.path.join(control, "sessions.log"), "a") as f:
        f.write(json.dumps(fields) + "\n")


def descendants(root):
    """Every live process below `root` (from /proc), deepest last."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(0), []):
            found.append(child)
            queue.append(child)
    return found


def reap_all():
    """Reaps every ended child without waiting; True when no child is left at all."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


def end_everything(control, group):
    """SIGTERM to the group and every descendant, SIGKILL after the grace period, reap them all."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, number)
        except OSError:
            pass
        for pid in descendants(os.getpid()):
            try:
                os.kill(pid, number)
            except OSError:
                pass
        deadline = time.monotonic() + GRACE_SECONDS
        while time.monotonic() < deadline:
            if reap_all() and not descendants(os.getpid()):
                log(control, "ended", by=signal.Signals(number).name)
                return
            time.sleep(0.05)
    log(control, "left", pids=descendants(os.getpid()))


def running_port(control):
    """The DevTools port of the Chromium a live session of this desktop runs, or None."""
    live = False
    for entry in os.listdir(control):
        pid = entry[len("session-"):]
        if entry.startswith("session-") and pid.isdigit() and int(pid) != os.getpid():
            live = live or os.path.exists("/proc/" + pid)
    try:
        with open(os.path.join(control, "profile", "DevToolsActivePort")) as f:
            port = int(f.readline())
    except (OSError, ValueError):
        return None
    return port if live else None


def wait_for_devtools(control, browser, seconds=90):
    """Waits until the browser has written its DevTools port (or has ended)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and browser.poll() is None:
        if os.path.exists(os.path.join(control, "profile", "DevToolsActivePort")):
            return
        time.sleep(0.05)


def main():
    # Descriptors the launching app left inheritable (its pipes) must not stay open in a browser
    # that outlives it: its test would wait for their end.
    for fd in os.listdir("/proc/self/fd"):
        if int(fd) > 2:
            try:
                os.close(int(fd))
            except OSError:
                pass
    control, command = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, on_signal)
    with open(os.path.join(control, "session-%d" % os.getpid()), "w") as f:
        f.write("%d\n" % os.getpid())
    url = command[-1] if command else ""
    log(control, "launched", url=url)
    status = None
    browser = None
    try:
        # One launch at a time decides whether a browser already runs (and starts it if not).
        with open(os.path.join(control, "launch.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            port = running_port(control)
            if port is not None:
                request = urllib.request.Request(
                    "http://127.0.0.1:%d/json/new?%s" % (port, urllib.parse.quote(url, safe="")), method="PUT")
                with urllib.request.urlopen(request, timeout=30) as response:
                    tab = json.loads(response.read())
                log(control, "opened-in-running-browser", port=port, target=tab.get("id"))
                os.unlink(os.path.join(control, "session-%d" % os.getpid()))
                return
            # A browser that ran before and ended left its port behind: wait for the new one's.
            try:
                os.unlink(os.path.join(control, "profile", "DevToolsActivePort"))
            except FileNotFoundError:
                pass
            with open(os.path.join(control, "chromium.log"), "ab") as output:
                browser = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                                           start_new_session=True)
            wait_for_devtools(control, browser)
        log(control, "browser-started", browser=browser.pid)
        status = browser.wait()
        log(control, "browser-exited", status=status)
    except Stop:
        log(control, "stop-requested")
    finally:
        if browser is not None:
            end_everything(control, browser.pid)
    sys.exit(0 if status is None else status)


if __name__ == "__main__":
    main()
