#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app that runs the lower level of WebviewHost's GObject layer, a
WebviewHost.WebAuthSession for an authorization URL of its own (no OAuth), and prints what it
saw as JSON. The authorization page is served by this script on 127.0.0.1: it sends the
person on to the redirect URI by its own timer, with ?code=...&state=...

  websession.py MODE
    MODE complete  the library's window shows the page, which redirects: the URL returned, the
                   signals in order
    MODE denied    the page redirects with an OAuth error (error=access_denied): the session does
                   no OAuth, so the URL is returned as it is, with did-complete, not an error
    MODE keys-on, keys-off
                   as complete, with the parameters' security-keys on (the default) or off; the
                   page adds &api=<typeof PublicKeyCredential> to the redirect (a security key is
                   reachable: the test sets WEBVIEWHOST_VIRTUAL_AUTHENTICATORS)
    MODE desktop-proxy
                   as complete, in the app's own view (a window of its own) given
                   WebviewHost.use_desktop_proxy(view) first: the test sets http_proxy with a user
                   name and password, which the view's first 407 is answered with ("applied": what
                   the call returned)
    MODE cancel    a page that never redirects; the app cancels its Gio.Cancellable once it
                   loaded; then a second session cancelled with cancel() before its start, and a
                   third without a redirect URI
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, Gtk, WebKit2, WebviewHost  # noqa: E402

mode = sys.argv[1]
REDIRECT = "http://127.0.0.1:23686/session-callback"
CALLBACK = REDIRECT + ("?error=access_denied&error_description=Not+this+time&state=the-state" if mode == "denied"
                       else "?code=the-code&state=the-state")
report = {"mode": mode, "signals": [], "views": []}
loop = GLib.MainLoop()


class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/authorize"):
            body = ("<!doctype html><title>Authorize</title><p>Signing in...</p>"
                    "<script>setTimeout(function () { location.href = %s + (%s ? '&api=' + typeof PublicKeyCredential : ''); }, 300);</script>"
                    % (json.dumps(CALLBACK), json.dumps(mode.startswith("keys-"))))
        else:
            body = "<!doctype html><title>Stay</title><p>This page waits.</p>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = "http://127.0.0.1:%d" % server.server_address[1]


def finish():
    print(json.dumps(report), flush=True)
    loop.quit()


def error_facts(error):
    return {"domain": error.domain, "code": error.code, "message": error.message}


def visible_windows():
    return [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]


cancellable = Gio.Cancellable()
parameters = WebviewHost.InteractiveParameters(webview_type=WebviewHost.WebviewType.EMBEDDED, timeout=120,
                                               window_title="The session's window", scopes=["ignored"])
if mode == "keys-off":
    parameters.props.security_keys = False
if mode == "desktop-proxy":
    own_window = Gtk.Window(title="An app's own view")
    own_view = WebKit2.WebView()
    own_window.add(own_view)
    own_window.show_all()
    report["applied"] = WebviewHost.use_desktop_proxy(own_view)
    parameters.props.custom_webview = own_view
page = base + ("/authorize?client=any" if mode in ("complete", "denied", "keys-on", "keys-off", "desktop-proxy") else "/stay")
session = WebviewHost.WebAuthSession(authorization_url=page, redirect_uri=REDIRECT, parameters=parameters)


def on_start(_session, url, view):
    report["signals"].append("did-start-load")
    report["views"].append(view is not None)


def on_finish(_session, url, view):
    report["signals"].append("did-finish-load")
    report["views"].append(view is not None)
    if mode == "cancel" and view is not None and not cancellable.is_cancelled():
        report["cancelledOn"] = url
        cancellable.cancel()


def on_complete(_session, url, view):
    report["signals"].append("did-complete")
    report["completeURL"] = url


def on_fail(_session, error, view):
    report["signals"].append("did-fail")
    report["failError"] = error_facts(error)


session.connect("did-start-load", on_start)
session.connect("did-finish-load", on_finish)
session.connect("did-complete", on_complete)
session.connect("did-fail", on_fail)


def third_done(third, result, _data):
    try:
        third.start_finish(result)
        report["thirdOutcome"] = "success"
    except GLib.Error as error:
        report["thirdError"] = error_facts(error)
    finish()


def second_done(second, result, _data):
    try:
        second.start_finish(result)
        report["secondOutcome"] = "success"
    except GLib.Error as error:
        report["secondError"] = error_facts(error)
        report["secondIsCanceled"] = error.matches(WebviewHost.error_quark(), WebviewHost.Error.CANCELED)
    # No redirect URI: the start's error.
    third = WebviewHost.WebAuthSession(authorization_url=page)
    third.start_async(None, third_done, None)


def done(session, result, _data):
    report["visibleWindows"] = visible_windows()
    try:
        report["url"] = session.start_finish(result)
        report["outcome"] = "success"
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = error_facts(error)
        report["isCancelled"] = error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    if mode == "cancel":
        second = WebviewHost.WebAuthSession.new(page, REDIRECT, parameters)
        second.cancel()
        second.start_async(None, second_done, None)
        return
    # Once a session ended its signals are over: let a late one show before reporting.
    GLib.timeout_add(500, lambda: (finish(), False)[1])


session.start_async(cancellable, done, None)
GLib.timeout_add_seconds(150, lambda: (report.update(outcome="timeout"), finish()))
loop.run()
server.shutdown()
