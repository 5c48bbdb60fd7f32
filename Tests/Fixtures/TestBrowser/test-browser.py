#!/usr/bin/env python3
"""A scripted web browser for the system-browser tests, registered as the default
x-scheme-handler/http(s) application in a temporary XDG setup and launched by GIO.

It opens the URL given as its argument, follows redirects itself, submits an auto-submitting
form (response_mode=form_post) by POST, and writes what it did as JSON lines to the file named
by TEST_BROWSER_LOG. Behaviour, from the environment:
  TEST_BROWSER_EXTRA_FIRST  comma-separated paths to GET on a new origin before the first
                            request to it (favicon, a wrong path)
  TEST_BROWSER_REPEAT=1     GET the last callback URL again after the final page
  TEST_BROWSER_STALL=1      load the first page only, then stop (the person walked away)
  TEST_BROWSER_WAIT_FOR     a file to wait for (at most 15 s) before the first request
  TEST_BROWSER_DELAY_MS     wait this long before the first request
  TEST_BROWSER_EXIT_STATUS   exit with this status at once, without any request
  TEST_BROWSER_EXIT_STAMP    ... having written the time it exits (time.monotonic()) to this file
  TEST_BROWSER_NEVER_FETCH=1  log the launch and exit 0 without any request
  TEST_BROWSER_OPEN_WITH    a program to run with a custom-scheme URL the sign-in lands on
                            (as a desktop would start the scheme's handler)
  TEST_BROWSER_ACCEPT_LANGUAGE  the Accept-Language header of every request (the browser's
                            languages, as a person set them)
It never runs longer than 20 seconds and only talks to loopback addresses.
"""
import html.parser
import json
import os
import signal
import subprocess
import sys
import time
import ipaddress
import urllib.error
import urllib.parse
import urllib.request

LOG = os.environ.get("TEST_BROWSER_LOG")
signal.alarm(20)


def log(event, **fields):
    if not LOG:
        return
    fields["event"] = event
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(fields) + "\n")
        f.flush()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


opener = urllib.request.build_opener(NoRedirect)


class FormParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.form = None
        self.fields = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and self.form is None:
            self.form = attrs
        elif tag == "input" and self.form is not None and attrs.get("name"):
            self.fields.append((attrs["name"], attrs.get("value", "")))


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return (parts.scheme, parts.hostname, parts.port)


def canonical(url):
    """The URL as a browser writes it (WHATWG URL): the host in lower case, an IPv6 literal in
    its short form ([0:0:0:0:0:0:0:1] is [::1])."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    try:
        address = ipaddress.ip_address(host)
        host = "[%s]" % address.compressed if address.version == 6 else address.compressed
    except ValueError:
        pass
    netloc = host + (":%d" % parts.port if parts.port is not None else "")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def is_loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def fetch(method, url, data=None):
    url = canonical(url)
    host = urllib.parse.urlsplit(url).hostname
    if not is_loopback(host):
        log("refused-non-loopback", url=url)
        return None, None, None
    request = urllib.request.Request(url, data=data, method=method)
    if os.environ.get("TEST_BROWSER_ACCEPT_LANGUAGE"):
        request.add_header("Accept-Language", os.environ["TEST_BROWSER_ACCEPT_LANGUAGE"])
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with opener.open(request, timeout=5) as response:
            status, headers, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, body = error.code, error.headers, error.read()
    except (urllib.error.URLError, OSError) as error:
        log("request", method=method, url=url, error=str(getattr(error, "reason", error)))
        return None, None, None
    body = body.decode("utf-8", "replace")
    log("request", method=method, url=url, status=status, location=headers.get("Location"))
    return status, headers, body


def main():
    start = sys.argv[1]
    # A launch context from the app's display (GdkAppLaunchContext) gives a startup id to an entry
    # that asks for startup notification; GIO's plain context gives none.
    log("launched", url=start, startup_id=os.environ.get("DESKTOP_STARTUP_ID", ""))
    if os.environ.get("TEST_BROWSER_EXIT_STATUS"):
        log("done")
        stamp = os.environ.get("TEST_BROWSER_EXIT_STAMP")
        if stamp:  # when it exits (CLOCK_MONOTONIC), for the time from its exit to the session's end
            with open(stamp, "w") as f:
                f.write("%.6f" % time.monotonic())
        sys.exit(int(os.environ["TEST_BROWSER_EXIT_STATUS"]))
    if os.environ.get("TEST_BROWSER_NEVER_FETCH") == "1":
        log("done")
        return
    time.sleep(int(os.environ.get("TEST_BROWSER_DELAY_MS", "0")) / 1000)
    wait_for = os.environ.get("TEST_BROWSER_WAIT_FOR")
    if wait_for:
        deadline = time.monotonic() + 15
        while not os.path.exists(wait_for) and time.monotonic() < deadline:
            time.sleep(0.05)
    extra = [p for p in os.environ.get("TEST_BROWSER_EXTRA_FIRST", "").split(",") if p]
    # The app hands the browser a first hop on its own listener, which redirects to the login
    # page: the login page's origin is the one already "open"; the next new origin is the callback.
    seen_origins = set()
    method, url, data = "GET", start, None
    last_callback = None
    status = body = headers = None
    for hop in range(10):
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            program = os.environ.get("TEST_BROWSER_OPEN_WITH")
            log("custom-scheme", url=url, handler=program)
            if program:
                result = subprocess.run(program.split() + [url], timeout=15)
                log("handler-exited", status=result.returncode)
            break
        if hop == 1:
            seen_origins.add(origin(url))
        elif hop >= 2 and origin(url) not in seen_origins:
            seen_origins.add(origin(url))
            last_callback = url
            base = "%s://%s" % (urllib.parse.urlsplit(url).scheme, urllib.parse.urlsplit(url).netloc)
            for path in extra:
                fetch("GET", base + path)
        status, headers, body = fetch(method, url, data)
        if status is None:
            break
        if os.environ.get("TEST_BROWSER_STALL") == "1":
            log("stalled", url=url)
            break
        if status in (301, 302, 303, 307, 308) and headers.get("Location"):
            url = urllib.parse.urljoin(url, headers["Location"])
            method, data = "GET", None
            continue
        parser = FormParser()
        parser.feed(body)
        if status == 200 and parser.form is not None and parser.form.get("method", "").lower() == "post":
            url = urllib.parse.urljoin(url, parser.form.get("action", url))
            method, data = "POST", urllib.parse.urlencode(parser.fields).encode()
            continue
        break
    log("final", url=url, status=status, body=body,
        content_language=headers.get("Content-Language") if headers is not None else None)
    if os.environ.get("TEST_BROWSER_REPEAT") == "1" and last_callback:
        fetch("GET", last_callback)
    log("done")


main()
