#!/usr/bin/env python3
"""The app's own choice of provider from Python: a WebviewHost.SelectionPolicy (WebviewHost-3.0)
set on a call's InteractiveParameters (selection-policy), signing in at Glewlwyd. A provider
written in Python ("python-browser", scripted_browser.py) is
registered as kind OTHER at priority 1, which the default policy never chooses while the embedded
view can run. Prints what it saw as JSON.

  policy.py MODE CLIENT_ID ISSUER USERNAME PASSWORD
    MODE choose   three calls at once, two with their own policy: one chooses python-browser and
                  signs in through it, the other refuses (GLib.Error); each policy is asked once.
                  The third has none: the process's (default) policy refuses its
                  AUTHENTICATION_SESSION (the test desktop has no browser)
    MODE default  the policy returns None for an EMBEDDED call: the default choice (the library's
                  window, signed in by Tests/Fixtures/Glewlwyd/autopilot.js)
    MODE refuse   policies that refuse (WVH_ERROR_INVALID_PARAMETERS, a Gio error), one that names
                  an unregistered provider, and a WebAuthSession whose policy refuses: each call's error

Any page of the library's window where the policy should have kept it out cancels the call (so a
policy that is ignored fails at once, not at a timeout).
"""
import json
import os
import sys
import threading

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, GObject, Gtk, WebviewHost  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scripted_browser import ScriptedBrowser  # noqa: E402

mode, client_id, issuer, username, password = sys.argv[1:6]
HERE = os.path.dirname(os.path.abspath(__file__))
REDIRECT = "http://127.0.0.1:23685/embedded-callback"
SCOPES = ["openid", "profile", "email", "offline_access"]
report = {"mode": mode, "providerCalls": [], "unexpectedPages": []}
loop = GLib.MainLoop()


def finish():
    report["visibleWindows"] = [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]
    print(json.dumps(report), flush=True)
    loop.quit()


def error_facts(error):
    return {"domain": error.domain, "code": error.code, "message": error.message}


class Policy(GObject.Object, WebviewHost.SelectionPolicy):
    """Answers `answer` (a provider id, None, or a GLib.Error to raise) and records what it was asked."""

    def __init__(self, name, answer):
        super().__init__()
        self.name, self.answer = name, answer
        self.asked = []

    def do_select_provider(self, parameters, providers):
        self.asked.append({
            "parameters": parameters is call_parameters.get(self.name),
            "mainThread": threading.current_thread() is threading.main_thread(),
            "providers": [{"id": p.props.id, "displayName": p.props.display_name, "kind": p.props.kind.value_nick,
                           "priority": p.props.priority, "available": p.props.available,
                           "unavailableReason": p.props.unavailable_reason,
                           "supportsCustomWebview": p.props.supports_custom_webview,
                           "requiresDisplay": p.props.requires_display} for p in providers],
        })
        report.setdefault("asked", {})[self.name] = self.asked
        # Each provider's getters against its properties, and the list kept past this call (the
        # invoker below gets it again after the sign-in).
        for p in providers:
            getters = (p.get_id(), p.get_display_name(), p.get_kind(), p.get_priority(), p.get_available(),
                       p.get_unavailable_reason(), p.get_supports_custom_webview(), p.get_requires_display())
            props = (p.props.id, p.props.display_name, p.props.kind, p.props.priority, p.props.available,
                     p.props.unavailable_reason, p.props.supports_custom_webview, p.props.requires_display)
            if getters != props:
                report.setdefault("getterMismatches", []).append(p.props.id)
        kept_providers.extend(providers)
        if isinstance(self.answer, GLib.Error):
            raise self.answer
        return self.answer


kept_providers = []


def invoke_kept():
    """A policy asked through the interface's invoker (select_provider), from Python, with the
    providers a call's policy got, kept past that call and collected around."""
    import gc
    gc.collect()
    direct = Policy("direct", "python-browser")
    chosen = direct.select_provider(WebviewHost.InteractiveParameters(), kept_providers)
    gc.collect()
    report["invoked"] = {"chosen": chosen, "asked": len(direct.asked),
                         "ids": sorted({p.get_id() for p in kept_providers})}


ScriptedBrowser(report, username, password).register("python-browser", "A browser written in Python", WebviewHost.ProviderKind.OTHER, 1, False)
call_parameters = {}


def application(name):
    app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer, redirect_uri=REDIRECT, token_cache="memory")
    app.init(None)
    return app


def parameters(name, policy, webview_type=WebviewHost.WebviewType.DEFAULT):
    made = WebviewHost.InteractiveParameters(scopes=SCOPES, timeout=90, webview_type=webview_type, selection_policy=policy)
    call_parameters[name] = made
    return made


def watch_pages(app, cancellable, autopilot=None):
    """The library's window showing a page: signed in by the autopilot, or (where the policy should
    have kept the window out) recorded and cancelled at once."""
    def on_finish(_app, url, view):
        if view is None:
            return
        if autopilot is not None:
            view.evaluate_javascript(autopilot, -1, None, None, None, None, None)
        else:
            report["unexpectedPages"].append(url.split("?")[0])
            cancellable.cancel()
    app.connect("did-finish-load", on_finish)


def errors(name, policy, webview_type, then):
    """One call whose policy refuses: its error, and the windows visible when its callback runs."""
    app, cancellable = application(name), Gio.Cancellable()
    watch_pages(app, cancellable)

    def done(app, result, _data):
        try:
            app.acquire_token_finish(result)
            report[name] = {"outcome": "success"}
        except GLib.Error as error:
            report[name] = {"outcome": "error", "error": error_facts(error),
                            "windows": [w.get_title() for w in Gtk.Window.list_toplevels() if w.get_visible()]}
        then()

    app.acquire_token_async(parameters(name, policy, webview_type), cancellable, done, None)


if mode == "choose":
    chooser = Policy("chooser", "python-browser")
    refuser = Policy("refuser", GLib.Error.new_literal(WebviewHost.error_quark(), "This app signs in at the kiosk only.",
                                                       WebviewHost.Error.PROVIDER_UNAVAILABLE))
    pending = {"chooser", "refuser", "bystander"}

    def ended(name):
        pending.discard(name)
        if not pending:
            finish()

    app, cancellable = application("chooser"), Gio.Cancellable()
    watch_pages(app, cancellable)
    report["signals"] = []
    for signal in ("did-start-load", "did-finish-load", "did-complete"):
        app.connect(signal, lambda _app, url, view, signal=signal: report["signals"].append(signal))

    def chosen_done(app, result, _data):
        try:
            tokens = app.acquire_token_finish(result)
            report["chooser"] = {"outcome": "success", "username": tokens.props.account.props.username}
        except GLib.Error as error:
            report["chooser"] = {"outcome": "error", "error": error_facts(error)}
        report["callsAtCallback"] = list(report["providerCalls"])
        invoke_kept()
        ended("chooser")

    app.acquire_token_async(parameters("chooser", chooser), cancellable, chosen_done, None)
    errors("refuser", refuser, WebviewHost.WebviewType.DEFAULT, lambda: ended("refuser"))
    errors("bystander", None, WebviewHost.WebviewType.AUTHENTICATION_SESSION, lambda: ended("bystander"))

elif mode == "default":
    path = os.path.join(HERE, "..", "Glewlwyd", "autopilot.js")
    autopilot = (open(path).read().replace("__USERNAME__", json.dumps(username))
                 .replace("__PASSWORDS__", json.dumps([password])).replace("__ON_LOGOUT__", "return;"))
    policy = Policy("default", None)
    app, cancellable = application("default"), Gio.Cancellable()
    watch_pages(app, cancellable, autopilot)
    report["views"] = []
    app.connect("did-finish-load", lambda _app, url, view: report["views"].append(view is not None))

    def done(app, result, _data):
        try:
            tokens = app.acquire_token_finish(result)
            report["outcome"] = "success"
            report["username"] = tokens.props.account.props.username
        except GLib.Error as error:
            report["outcome"] = "error"
            report["error"] = error_facts(error)
        finish()

    app.acquire_token_async(parameters("default", policy, WebviewHost.WebviewType.EMBEDDED), cancellable, done, None)

elif mode == "refuse":
    def session_refused():
        policy = Policy("session", GLib.Error.new_literal(WebviewHost.error_quark(), "No sign-in from this page.",
                                                          WebviewHost.Error.PROVIDER_UNAVAILABLE))
        made = WebviewHost.InteractiveParameters(webview_type=WebviewHost.WebviewType.EMBEDDED, selection_policy=policy)
        call_parameters["session"] = made
        session = WebviewHost.WebAuthSession(authorization_url=issuer + "/auth?client_id=x", redirect_uri=REDIRECT,
                                             parameters=made)
        cancellable = Gio.Cancellable()
        session.connect("did-finish-load", lambda _s, url, view: (report["unexpectedPages"].append(url), cancellable.cancel()))

        def done(session, result, _data):
            try:
                report["session"] = {"outcome": "success", "url": session.start_finish(result)}
            except GLib.Error as error:
                report["session"] = {"outcome": "error", "error": error_facts(error)}
            finish()

        session.start_async(cancellable, done, None)

    steps = [
        ("invalid", GLib.Error.new_literal(WebviewHost.error_quark(), "Sign-in is not allowed with these parameters.",
                                           WebviewHost.Error.INVALID_PARAMETERS)),
        ("foreign", GLib.Error.new_literal(Gio.io_error_quark(), "The kiosk is closed.", Gio.IOErrorEnum.PERMISSION_DENIED)),
        ("unregistered", "no-such-provider"),
    ]

    def next_step():
        if not steps:
            session_refused()
            return
        name, answer = steps.pop(0)
        errors(name, Policy(name, answer), WebviewHost.WebviewType.EMBEDDED, next_step)

    next_step()

else:
    raise SystemExit("unknown mode " + mode)

GLib.timeout_add_seconds(170, lambda: (report.update(outcome="timeout"), finish()))
loop.run()
