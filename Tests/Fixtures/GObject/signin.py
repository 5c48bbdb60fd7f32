#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app that signs in through WebviewHost's GObject layer
(WebviewHost-3.0, from GI_TYPELIB_PATH), as the README shows, and prints what it saw as JSON.

  signin.py MODE CLIENT_ID ISSUER USERNAME PASSWORD
    MODE custom-view   the app's own WebKit2.WebView passed in; the signals recorded in order;
                       the page signed in by the autopilot (Tests/Fixtures/Glewlwyd/autopilot.js)
                       from did-finish-load; then a silent renewal
    MODE cancel        the library's window; the app cancels its Gio.Cancellable once the login
                       page has loaded
    MODE bad-authority an http authority on another host: the GLib.Error, its domain and code
"""
import gc
import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, Gtk, WebKit2, WebviewHost  # noqa: E402

mode, client_id, issuer, username, password = sys.argv[1:6]
REDIRECT = "http://127.0.0.1:23685/embedded-callback"
SCOPES = ["openid", "profile", "email", "offline_access"]
report = {"mode": mode, "signals": []}
loop = GLib.MainLoop()


def finish():
    print(json.dumps(report), flush=True)
    loop.quit()


def error_facts(error):
    return {"domain": error.domain, "code": error.code, "message": error.message}


def autopilot():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Glewlwyd", "autopilot.js")
    script = open(path).read()
    return (script.replace("__USERNAME__", json.dumps(username)).replace("__PASSWORDS__", json.dumps([password]))
            .replace("__ON_LOGOUT__", "return;"))


if mode == "bad-authority":
    try:
        WebviewHost.PublicClientApplication.new(client_id, "http://idp.example.com/oidc", REDIRECT)
        report["outcome"] = "made"
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = error_facts(error)
        report["isWebviewHostError"] = error.matches(WebviewHost.error_quark(), WebviewHost.Error.INVALID_PARAMETERS)
    # A proxy URL the library refuses: the same domain, through the construct property.
    try:
        app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer, redirect_uri=REDIRECT,
                                                  token_cache="memory", network_proxy="ftp://proxy.example.com")
        app.init(None)
        report["proxyOutcome"] = "made"
    except GLib.Error as error:
        report["proxyError"] = error_facts(error)
    print(json.dumps(report), flush=True)
    sys.exit(0)

app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer, redirect_uri=REDIRECT, token_cache="memory")
app.init(None)
script = autopilot()
cancellable = Gio.Cancellable()


def on_start(_app, url, view):
    report["signals"].append("did-start-load")


def on_finish(_app, url, view):
    report["signals"].append("did-finish-load")
    report["viewIsTheApps"] = report.get("viewIsTheApps", True) and (mode != "custom-view" or view is app_view)
    if mode == "cancel":
        if view is not None and not cancellable.is_cancelled():
            report["cancelledOn"] = url.split("?")[0]
            cancellable.cancel()
        return
    if view is not None:
        view.evaluate_javascript(script, -1, None, None, None, None, None)


def on_complete(_app, url, view):
    report["signals"].append("did-complete")
    report["callbackHasCode"] = "code=" in url


def on_fail(_app, error, view):
    report["signals"].append("did-fail")
    report["failError"] = error_facts(error)


app.connect("did-start-load", on_start)
app.connect("did-finish-load", on_finish)
app.connect("did-complete", on_complete)
app.connect("did-fail", on_fail)

parameters = WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120)
app_view = None
if mode == "custom-view":
    window = Gtk.Window(title="The app's own window")
    window.set_default_size(800, 700)
    app_view = WebKit2.WebView()
    window.add(app_view)
    window.show_all()
    parameters.props.webview_type = WebviewHost.WebviewType.EMBEDDED
    parameters.props.custom_webview = app_view
else:
    parameters.props.webview_type = WebviewHost.WebviewType.EMBEDDED


def silent_done(app, result, _data):
    try:
        renewed = app.acquire_token_silent_finish(result)
        report["silent"] = {"differs": renewed.props.access_token != report["accessToken"],
                            "subject": renewed.props.account.props.subject}
    except GLib.Error as error:
        report["silentError"] = error_facts(error)
    finish()


def result_surface(tokens):
    """Every getter of the result and its account, read after the collector ran, against its property."""
    account = tokens.get_account()
    gc.collect()
    pairs = {
        "access_token": (tokens.get_access_token(), tokens.props.access_token),
        "id_token": (tokens.get_id_token(), tokens.props.id_token),
        "expires_on": (tokens.get_expires_on(), tokens.props.expires_on),
        "scopes": (list(tokens.get_scopes()), list(tokens.props.scopes)),
        "has_refresh_token": (tokens.get_has_refresh_token(), tokens.props.has_refresh_token),
        "identifier": (account.get_identifier(), account.props.identifier),
        "username": (account.get_username(), account.props.username),
        "name": (account.get_name(), account.props.name),
        "subject": (account.get_subject(), account.props.subject),
        "issuer": (account.get_issuer(), account.props.issuer),
    }
    gc.collect()
    return {
        "differing": [name for name, (getter, prop) in pairs.items() if getter != prop],
        "empty": [name for name, (getter, _) in pairs.items() if getter in (None, "", [])],
        "idTokenParts": len((tokens.get_id_token() or "").split(".")),
        "expiresInFuture": tokens.get_expires_on() > time.time(),
        "issuer": account.get_issuer(),
    }


def done(app, result, _data):
    try:
        tokens = app.acquire_token_finish(result)
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = error_facts(error)
        report["isCancelled"] = error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
        report["visibleWindows"] = [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]
        finish()
        return
    report["outcome"] = "success"
    report["accessToken"] = tokens.props.access_token
    report["username"] = tokens.props.account.props.username
    report["subject"] = tokens.props.account.props.subject
    report["scopes"] = list(tokens.props.scopes)
    report["hasRefreshToken"] = tokens.props.has_refresh_token
    report["viewURIAfter"] = app_view.get_uri() if app_view is not None else None
    report["resultSurface"] = result_surface(tokens)
    app.acquire_token_silent_async(tokens.props.account, SCOPES, True, None, silent_done, None)


app.acquire_token_async(parameters, cancellable, done, None)
GLib.timeout_add_seconds(170, lambda: (report.update(outcome="timeout"), finish()))
loop.run()
