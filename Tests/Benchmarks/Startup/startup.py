#!/usr/bin/env python3
"""One start of a Python GTK 3 app for Tests/Benchmarks/gobject-startup.sh: GTK imported and
initialised; then, unless MODE is `baseline`, WebviewHost imported, a PublicClientApplication made
(memory token cache) and its accounts read (the first call an app makes at start-up, before any
sign-in). Prints the resident memory (VmRSS, kB) and the time (ms) that part added, as JSON.

  startup.py MODE        MODE: baseline | library
"""
import json
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def resident():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


Gtk.init([])
before, started = resident(), time.perf_counter()
if sys.argv[1] == "library":
    gi.require_version("WebviewHost", "3.0")
    from gi.repository import WebviewHost  # noqa: E402

    app = WebviewHost.PublicClientApplication(client_id="startup", authority="https://127.0.0.1:9/",
                                              redirect_uri="http://127.0.0.1:23685/cb", token_cache="memory")
    app.init(None)
    loop = GLib.MainLoop()
    accounts = []

    def done(app, result, _data):
        accounts.extend(app.get_accounts_finish(result))
        loop.quit()

    app.get_accounts_async(None, done, None)
    loop.run()
print(json.dumps({"kB": resident() - before, "ms": (time.perf_counter() - started) * 1000, "rss": resident()}))
