#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app that does what every app does in its first week with
WebviewHost's GObject layer (WebviewHost-3.0, from GI_TYPELIB_PATH), run under
G_DEBUG=fatal-criticals so that a wrong annotation aborts it, and prints what it saw as JSON.
Every object the layer returns is kept across gc.collect(), read again and passed back in.

  accounts.py MODE CACHE CLIENT_ID ISSUER USERNAME PASSWORD
    MODE first     signs in in the library's window (token cache: the file CACHE), lists the
                   accounts, reads each after gc.collect(), renews silently with the listed account
    MODE restart   a new process over the same CACHE: lists the accounts, reads them after
                   gc.collect(), renews silently with one, signs it out, lists none
    MODE two-apps  two applications in one process: A signs in while B's sign-in fails with
                   SESSION_ALREADY_IN_PROGRESS; then B's sign-in shows its page while A's fails,
                   and B is cancelled. Each application's signals, as each saw them.
"""
import gc
import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, Gtk, WebviewHost  # noqa: E402

mode, cache, client_id, issuer, username, password = sys.argv[1:7]
REDIRECT = "http://127.0.0.1:23685/embedded-callback"
SCOPES = ["openid", "profile", "email", "offline_access"]
report = {"mode": mode}
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


SCRIPT = autopilot()


def account_facts(account):
    return {"identifier": account.props.identifier, "username": account.props.username, "name": account.props.name,
            "subject": account.props.subject, "issuer": account.props.issuer,
            "getters": [account.get_identifier(), account.get_username(), account.get_subject(), account.get_issuer()]}


def application(cache_name):
    app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer, redirect_uri=REDIRECT, token_cache=cache_name)
    app.init(None)
    return app


def sign_in_on(view):
    view.evaluate_javascript(SCRIPT, -1, None, None, None, None, None)


def record_signals(app, name, autopilot=lambda view: True):
    """Records the app's signals; signs in on each page shown when autopilot(view) says so."""
    seen = report.setdefault("signals", {}).setdefault(name, [])

    def on_finish(_app, url, view):
        seen.append("did-finish-load")
        if view is not None and autopilot(view):
            sign_in_on(view)

    app.connect("did-start-load", lambda _app, url, view: seen.append("did-start-load"))
    app.connect("did-finish-load", on_finish)
    app.connect("did-complete", lambda _app, url, view: seen.append("did-complete"))
    app.connect("did-fail", lambda _app, error, view: seen.append("did-fail %d" % error.code))
    return seen


def list_then(app, then):
    """get_accounts, each account read, gc.collect(), read again; then(accounts or None)."""
    def listed(app, result, _data):
        try:
            accounts = app.get_accounts_finish(result)
        except GLib.Error as error:
            report["accountsError"] = error_facts(error)
            then(None)
            return
        first = [account_facts(a) for a in accounts]
        gc.collect()
        again = [account_facts(a) for a in accounts]
        kept = accounts[0] if len(accounts) > 0 else None
        del accounts
        gc.collect()
        report.setdefault("listings", []).append({"first": first, "again": again,
                                                  "keptAfterGC": account_facts(kept) if kept is not None else None})
        then(kept)
    app.get_accounts_async(None, listed, None)


def renew_silently(app, account, then):
    def renewed(app, result, _data):
        try:
            tokens = app.acquire_token_silent_finish(result)
            gc.collect()
            report["silent"] = {"username": tokens.props.account.props.username, "hasAccessToken": bool(tokens.props.access_token),
                                "scopes": list(tokens.get_scopes()), "expiresOn": tokens.props.expires_on}
        except GLib.Error as error:
            report["silentError"] = error_facts(error)
        then()
    app.acquire_token_silent_async(account, SCOPES, True, None, renewed, None)


if mode == "first":
    app = application("file:" + cache)
    record_signals(app, "app")

    def signed_in(app, result, _data):
        try:
            tokens = app.acquire_token_finish(result)
        except GLib.Error as error:
            report["outcome"] = "error"
            report["error"] = error_facts(error)
            finish()
            return
        report["outcome"] = "success"
        report["signedInAs"] = tokens.props.account.props.username
        del tokens
        gc.collect()
        list_then(app, lambda account: renew_silently(app, account, finish) if account is not None else finish())

    parameters = WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120, webview_type=WebviewHost.WebviewType.EMBEDDED)
    app.acquire_token_async(parameters, None, signed_in, None)

elif mode == "restart":
    app = application("file:" + cache)

    def signed_out(app, result, _data):
        try:
            report["signedOut"] = app.sign_out_finish(result)
        except GLib.Error as error:
            report["signOutError"] = error_facts(error)
        list_then(app, lambda account: (report.update(outcome="done", leftAfterSignOut=account is not None), finish()))

    def after_silent(account):
        gc.collect()
        report["accountAfterSilent"] = account_facts(account)
        app.sign_out_async(account, False, None, None, signed_out, None)

    def listed(account):
        if account is None:
            report["outcome"] = "no account"
            finish()
            return
        renew_silently(app, account, lambda: after_silent(account))

    list_then(app, listed)

elif mode == "two-apps":
    a = application("memory")
    b = application("memory")
    state = {"bStarted": False, "bFailed": False, "aRestarted": False, "aView": None}

    def a_autopilot(view):
        # A's sign-in waits on its page until B has failed: B must meet A's session running.
        state["aView"] = view
        return state["bFailed"]

    a_seen = record_signals(a, "A", a_autopilot)
    b_seen = record_signals(b, "B", lambda view: False)
    b_cancellable = Gio.Cancellable()

    def b_first_done(b, result, _data):
        try:
            b.acquire_token_finish(result)
            report["bFirst"] = "success"
        except GLib.Error as error:
            report["bFirst"] = error_facts(error)
        report["aSignalsWhenBFailed"] = list(a_seen)
        state["bFailed"] = True
        if state["aView"] is not None:
            sign_in_on(state["aView"])

    def a_first_page(_app, url, view):
        # A's page shows: B starts now, and fails at once (one interactive sign-in per process).
        if not state["bStarted"]:
            state["bStarted"] = True
            b.acquire_token_async(WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120), None, b_first_done, None)

    a_handler = a.connect("did-finish-load", a_first_page)

    def a_second_done(a, result, _data):
        try:
            a.acquire_token_finish(result)
            report["aSecond"] = "success"
        except GLib.Error as error:
            report["aSecond"] = error_facts(error)
        report["bSignalsWhenAFailed"] = list(b_seen)
        b_cancellable.cancel()

    def b_page(_app, url, view):
        # B's login page shows: A starts and fails at once; then B is cancelled.
        if not state["aRestarted"]:
            state["aRestarted"] = True
            a.acquire_token_async(WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120), None, a_second_done, None)

    def b_second_done(b, result, _data):
        try:
            b.acquire_token_finish(result)
            report["bSecond"] = "success"
        except GLib.Error as error:
            report["bSecond"] = error_facts(error)
            report["bSecondIsCancelled"] = error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
        # A late signal of either would show now.
        GLib.timeout_add(500, lambda: (report.update(outcome="done"), finish(), False)[2])

    def a_first_done(a, result, _data):
        try:
            tokens = a.acquire_token_finish(result)
            report["aFirst"] = "success"
            report["aUsername"] = tokens.props.account.props.username
        except GLib.Error as error:
            report["aFirst"] = error_facts(error)
        a.disconnect(a_handler)
        b.connect("did-finish-load", b_page)
        parameters = WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120, prompt="login",
                                                       webview_type=WebviewHost.WebviewType.EMBEDDED)
        b.acquire_token_async(parameters, b_cancellable, b_second_done, None)

    parameters = WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=120, webview_type=WebviewHost.WebviewType.EMBEDDED)
    a.acquire_token_async(parameters, None, a_first_done, None)

GLib.timeout_add_seconds(200, lambda: (report.update(outcome="timeout"), finish()))
loop.run()
