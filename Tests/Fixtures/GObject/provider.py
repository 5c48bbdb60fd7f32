#!/usr/bin/env python3
"""A web user agent written in Python, registered with WebviewHost through introspection
(WebviewHost-3.0's WebviewProvider interface) as a system-browser provider of a high priority,
so that the default selection policy chooses it over the built-in one; then a sign-in through it.
Its "browser" is scripted_browser.py's.

  provider.py CLIENT_ID ISSUER USERNAME PASSWORD
"""
import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import GLib, Gtk, WebviewHost  # noqa: E402, F401 (Gtk: initialised as in every app)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scripted_browser import ScriptedBrowser  # noqa: E402

client_id, issuer, username, password = sys.argv[1:5]
report = {"signals": [], "providerCalls": []}
loop = GLib.MainLoop()


class AskedBrowser(ScriptedBrowser):
    def do_is_available(self):
        report["providerCalls"].append("is_available")
        return True, None


browser = AskedBrowser(report, username, password)
browser.register("python-browser", "A browser written in Python", WebviewHost.ProviderKind.SYSTEM_BROWSER, 1000, False)

app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer,
                                          redirect_uri="http://127.0.0.1:23685/embedded-callback", token_cache="memory")
app.init(None)
for name in ("did-start-load", "did-finish-load", "did-complete"):
    app.connect(name, lambda _app, url, view, name=name: report["signals"].append(name))
app.connect("did-fail", lambda _app, error, view: report["signals"].append("did-fail " + error.message))


def done(app, result, _data):
    try:
        tokens = app.acquire_token_finish(result)
        report["outcome"] = "success"
        report["username"] = tokens.props.account.props.username
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = {"domain": error.domain, "code": error.code, "message": error.message}
    report["callsAtCallback"] = list(report["providerCalls"])
    report["unregistered"] = WebviewHost.WebviewProvider.unregister("python-browser")
    print(json.dumps(report), flush=True)
    loop.quit()


parameters = WebviewHost.InteractiveParameters(scopes=["openid", "profile", "email", "offline_access"], timeout=60)
app.acquire_token_async(parameters, None, done, None)
GLib.timeout_add_seconds(120, lambda: (report.update(outcome="timeout"), print(json.dumps(report)), loop.quit()))
loop.run()
