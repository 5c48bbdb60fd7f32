#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app whose sign-in leaves the embedded view, through WebviewHost's
GObject layer (WebviewHost-3.0, from GI_TYPELIB_PATH); prints each application's signals, in
order, as JSON.

  switch.py browser CLIENT_ID ISSUER
      The library's window shows the login page; the person clicks "Continue in your browser"
      (the header bar's button, found in the window as a person sees it, clicked once the page
      has loaded). The desktop's browser (the test's scripted one) signs in:
      will-switch-to-system-browser with the page's URL, then did-complete and the tokens.
  switch.py broker
      An authority of this script's own on 127.0.0.1 whose authorization page sends the person to
      Microsoft's broker app (msauth://...) by its own timer: will-switch-to-broker-app with that
      URI. No broker app takes it here, so the page stays; the app cancels once it saw the signal.
  Both: a second application, idle in the same process, records every signal it gets (none).
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, Gtk, WebviewHost  # noqa: E402

mode = sys.argv[1]
REDIRECT = "http://127.0.0.1:23685/embedded-callback"
BROKER_URI = "msauth://enroll?cpurl=https%3A%2F%2Fportal.example.com"
SIGNALS = ["did-start-load", "did-finish-load", "did-complete", "did-fail",
           "will-switch-to-system-browser", "will-switch-to-broker-app"]
report = {"mode": mode, "signals": {"A": [], "B": []}}
loop = GLib.MainLoop()
cancellable = Gio.Cancellable()


class Authority(BaseHTTPRequestHandler):
    """Discovery, and an authorization page that hands over to the broker app after 300 ms."""

    def do_GET(self):
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        if self.path == "/.well-known/openid-configuration":
            body, kind = json.dumps({
                "issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                "jwks_uri": base + "/keys", "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"]}), "application/json"
        elif self.path.startswith("/authorize"):
            body, kind = ("<!doctype html><title>Use the app</title><p>Opening the Authenticator app...</p>"
                          "<script>setTimeout(function () { location.href = %s; }, 300);</script>"
                          % json.dumps(BROKER_URI)), "text/html; charset=utf-8"
        else:
            body, kind = "{}", "application/json"
        data = body.encode()
        self.send_response(200 if body != "{}" else 404)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def finish():
    print(json.dumps(report), flush=True)
    loop.quit()


def widgets(widget):
    """The widget and everything inside it, the window's title bar included."""
    yield widget
    if isinstance(widget, Gtk.Window) and widget.get_titlebar() is not None:
        yield from widgets(widget.get_titlebar())
    if isinstance(widget, Gtk.Container):
        for child in widget.get_children():
            yield from widgets(child)


def click_continue_in_browser(view):
    """The person's click on the library's window's "Continue in your browser"."""
    window = view.get_toplevel()
    for widget in widgets(window):
        if (isinstance(widget, Gtk.Button) and widget.get_visible()
                and (widget.get_label() or "").replace("_", "") == "Continue in your browser"):
            report["clickedIn"] = window.get_title()
            widget.clicked()
            return True
    report["buttons"] = [w.get_label() for w in widgets(window) if isinstance(w, Gtk.Button)]
    return False


if mode == "broker":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Authority)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client_id, issuer = "switch-app", "http://127.0.0.1:%d" % server.server_address[1]
    report["brokerURI"] = BROKER_URI
else:
    client_id, issuer = sys.argv[2], sys.argv[3]

apps = {name: WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer, redirect_uri=REDIRECT,
                                                  token_cache="memory") for name in ("A", "B")}


def record(name, signal):
    """did-start-load, did-finish-load and did-complete carry (url, view), did-fail (error, view),
    the will-switch-* signals (url)."""
    def handler(_app, detail, view=None):
        seen = signal if signal in ("did-start-load", "did-finish-load") else "%s %s" % (
            signal, detail.code if isinstance(detail, GLib.Error) else detail)
        report["signals"][name].append(seen)
        if name != "A":
            return
        if signal == "did-finish-load" and mode == "browser" and view is not None and "clickedIn" not in report:
            report["clickedOn"] = detail.split("?")[0]
            click_continue_in_browser(view)
        if signal == "will-switch-to-broker-app":
            GLib.idle_add(lambda: cancellable.cancel() and False)
    return handler


for name, app in apps.items():
    app.init(None)
    for signal in SIGNALS:
        app.connect(signal, record(name, signal))


def done(app, result, _data):
    try:
        tokens = app.acquire_token_finish(result)
        report["outcome"] = "success"
        report["username"] = tokens.props.account.props.username
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = {"domain": error.domain, "code": error.code, "message": error.message}
        report["isCancelled"] = error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
    report["visibleWindows"] = [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]
    finish()


parameters = WebviewHost.InteractiveParameters(scopes=["openid", "profile", "email", "offline_access"], timeout=120,
                                               webview_type=WebviewHost.WebviewType.EMBEDDED)
apps["A"].acquire_token_async(parameters, cancellable, done, None)
GLib.timeout_add_seconds(170, lambda: (report.update(outcome="timeout"), finish()))
loop.run()
