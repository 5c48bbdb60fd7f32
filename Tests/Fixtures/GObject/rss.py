#!/usr/bin/env python3
"""The Python side of the GObject layer's memory benchmark (Tests/Benchmarks/gobject-rss.sh): N
sign-ins in the library's window through WebviewHost-3.0, against ISSUER (fake_entra.py), the
process's resident memory after a warm-up of 5 and after all of them, as JSON.

  rss.py N ISSUER
"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import GLib, Gtk, WebviewHost  # noqa: E402,F401

count, issuer = int(sys.argv[1]), sys.argv[2]
loop = GLib.MainLoop()
report = {}
app = WebviewHost.PublicClientApplication(client_id="entra-app", authority=issuer,
                                          redirect_uri="http://127.0.0.1:23685/embedded-callback", token_cache="memory")
app.init(None)


def resident():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def sign_in(index):
    parameters = WebviewHost.InteractiveParameters(scopes=["User.Read"], webview_type=WebviewHost.WebviewType.EMBEDDED, timeout=60)

    def done(app, result, _data):
        try:
            app.acquire_token_finish(result)
        except GLib.Error as error:
            report.update(outcome="error", message=error.message)
            loop.quit()
            return
        if index == 5:
            report["rssAfterWarmUp"] = resident()
        if index == count:
            report.update(outcome="success", rssAfterAll=resident())
            loop.quit()
        else:
            sign_in(index + 1)

    app.acquire_token_async(parameters, None, done, None)


sign_in(1)
loop.run()
print(json.dumps(report), flush=True)
