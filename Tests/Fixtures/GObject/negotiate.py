#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app at work, through WebviewHost's GObject layer (WebviewHost-3.0):
its intranet sign-in page asks for the person's Kerberos ticket over plain http
(Tests/Fixtures/Kerberos/negotiate_idp.py), so the app names it with WebviewHost.allow_negotiate
first thing; prewarms the library's window when it shows its sign-in button; then signs in with
the lower level (WebviewHost.WebAuthSession) in the library's window. Prints what it saw as JSON.

  negotiate.py BASE      (the page's http origin; the test gives KRB5_CONFIG and KRB5CCNAME)
"""
import json
import sys
import urllib.parse

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import GLib, Gtk, WebviewHost  # noqa: E402

base = sys.argv[1]
REDIRECT = "http://127.0.0.1:23688/intranet-callback"
report = {}
loop = GLib.MainLoop()


def error_facts(error):
    return {"domain": error.domain, "code": error.code, "message": error.message}


def allow(origins):
    try:
        return {"added": WebviewHost.allow_negotiate(origins)}
    except GLib.Error as error:
        return {"error": error_facts(error)}


# At the start of the app, before any web view: a wrong origin is refused (nothing added), then the intranet's.
report["refused"] = allow([base, "ftp://intranet.example.com"])
report["allowed"] = allow([base])

app = WebviewHost.PublicClientApplication(client_id="intranet-app", authority=base, redirect_uri=REDIRECT,
                                          token_cache="memory")
app.init(None)
embedded = WebviewHost.InteractiveParameters(webview_type=WebviewHost.WebviewType.EMBEDDED, timeout=120)
report["prewarmed"] = app.prewarm(embedded)
# WebKit's network process now runs: the list can no longer reach it.
report["late"] = allow([base])

authorization = base + "/authorize?" + urllib.parse.urlencode({"redirect_uri": REDIRECT, "state": "intranet-state"})
session = WebviewHost.WebAuthSession(authorization_url=authorization, redirect_uri=REDIRECT, parameters=embedded)


def done(session, result, _data):
    try:
        report["url"] = session.start_finish(result)
        report["outcome"] = "success"
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = error_facts(error)
    report["visibleWindows"] = [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]
    print(json.dumps(report), flush=True)
    loop.quit()


session.start_async(None, done, None)
GLib.timeout_add_seconds(150, lambda: (report.update(outcome="timeout"), print(json.dumps(report), flush=True), loop.quit()))
loop.run()
