#!/usr/bin/env python3
"""A Python GTK 3 app whose own view signs in behind the desktop's proxy when that proxy's URI
carries a user name and password (the test sets http_proxy=http://user:password@127.0.0.1:PORT):
WebviewHost.use_desktop_proxy(view), then a WebAuthSession in that view (custom-webview) for an
authorization page this script serves on 127.0.0.1, which redirects at once. Prints JSON.

  desktopproxy.py
"""
import json

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("Soup", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import GLib, Gtk, Soup, WebKit2, WebviewHost  # noqa: E402

REDIRECT = "http://127.0.0.1:23686/session-callback"
Gtk.init([])
loop = GLib.MainLoop()
report = {"signals": []}

server = Soup.Server()


def authorize(_server, message, _path, _query):
    message.set_status(302, None)
    message.get_response_headers().append("Location", REDIRECT + "?code=through-the-proxy&state=s")


server.add_handler("/authorize", authorize)
server.listen_local(0, Soup.ServerListenOptions.IPV4_ONLY)
port = server.get_uris()[0].get_port()

window = Gtk.Window(title="An app's own view")
view = WebKit2.WebView()
window.add(view)
window.show_all()
report["applied"] = WebviewHost.use_desktop_proxy(view)

parameters = WebviewHost.InteractiveParameters(webview_type=WebviewHost.WebviewType.EMBEDDED, custom_webview=view, timeout=60)
session = WebviewHost.WebAuthSession(authorization_url="http://127.0.0.1:%d/authorize" % port, redirect_uri=REDIRECT,
                                     parameters=parameters)
session.connect("did-fail", lambda _s, error, _v: report["signals"].append("did-fail " + error.message))
session.connect("did-complete", lambda *_: report["signals"].append("did-complete"))


def done(session, result, _data):
    try:
        report.update(outcome="success", url=session.start_finish(result))
    except GLib.Error as error:
        report.update(outcome="error", error=error.message)
    print(json.dumps(report), flush=True)
    loop.quit()


session.start_async(None, done, None)
GLib.timeout_add_seconds(90, lambda: (report.update(outcome="timeout"), print(json.dumps(report)), loop.quit()))
loop.run()
