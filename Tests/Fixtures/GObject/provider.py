#!/usr/bin/env python3
"""A web user agent written in Python, registered with WebviewHost through introspection
(WebviewHost-3.0's WebviewProvider interface) as a system-browser provider of a high priority,
so that the default selection policy chooses it over the built-in one; then a sign-in through it.
Its "browser" is Tests/Fixtures/Glewlwyd/browser_signin.py, run without blocking the main loop.

  provider.py CLIENT_ID ISSUER USERNAME PASSWORD
"""
import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, GObject, Gtk, WebviewHost  # noqa: E402

client_id, issuer, username, password = sys.argv[1:5]
BROWSER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Glewlwyd", "browser_signin.py")
report = {"signals": [], "providerCalls": []}
loop = GLib.MainLoop()


class ScriptedBrowser(GObject.Object, WebviewHost.WebviewProvider):
    def do_is_available(self):
        report["providerCalls"].append("is_available")
        return True, None

    def do_start(self, session):
        url = session.props.authorization_url
        report["providerCalls"].append("start")
        report["redirectURI"] = session.props.redirect_uri
        session.did_start_load(url)
        process = Gio.Subprocess.new(
            ["/usr/bin/python3", BROWSER, "--print-only", "-u", username, "-p", password, url],
            Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE)

        def browsed(process, result):
            _, out, err = process.communicate_utf8_finish(result)
            lines = [line for line in (out or "").splitlines() if line.startswith("REDIRECT_URL=")]
            if not lines:
                session.fail(WebviewHost.Error.NETWORK, "the scripted browser did not sign in: " + (err or "")[-500:])
                return
            callback = lines[-1][len("REDIRECT_URL="):]
            session.did_finish_load(url)
            report["completeAccepted"] = session.complete(callback)
            report["finishedAfterComplete"] = session.is_finished()
            # A second outcome does nothing.
            session.fail(WebviewHost.Error.FAILED, "too late")

        process.communicate_utf8_async(None, None, browsed)

    def do_dismiss(self, session):
        report["providerCalls"].append("dismiss")


browser = ScriptedBrowser()
browser.register("python-browser", "A browser written in Python", WebviewHost.ProviderKind.SYSTEM_BROWSER, 1000, False)

app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer,
                                          redirect_uri="http://127.0.0.1:53685/embedded-callback", token_cache="memory")
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
