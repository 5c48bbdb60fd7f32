#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app that uses the GObject layer's values without signing in, under
G_DEBUG=fatal-criticals: every property of WvhInteractiveParameters set (the object ones from
objects of its own: a Gtk.Window, a WebKit2.WebView, a Python WvhSelectionPolicy), dropped from
Python's side and collected, read back twice; an application's construct properties read back; the
error domain; a Python provider registered and unregistered both ways. Prints what it read as
JSON; a wrong annotation (a reference the binding frees that it does not own) aborts it. Also
lists the read-only values' properties that have no getter.
"""
import gc
import json

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
gi.require_version("WebviewHost", "3.0")
from gi.repository import GLib, GObject, Gtk, WebKit2, WebviewHost  # noqa: E402

Gtk.init([])
report = {}


class Policy(GObject.Object, WebviewHost.SelectionPolicy):
    def do_select_provider(self, parameters, providers):
        return None


class Provider(GObject.Object, WebviewHost.WebviewProvider):
    def do_is_available(self):
        return True, None

    def do_start(self, session):
        session.fail(WebviewHost.Error.PROVIDER_UNAVAILABLE, "not used")


def parameters():
    """Parameters whose object properties are the only references to their objects once it returns."""
    made = WebviewHost.InteractiveParameters()
    window = Gtk.Window(title="values")
    made.props.scopes = ["openid", "profile", "offline_access"]
    made.props.login_hint = "alice@example.com"
    made.props.prompt = "select_account"
    made.props.webview_type = WebviewHost.WebviewType.EMBEDDED
    made.props.parent_window = window
    made.props.custom_webview = WebKit2.WebView()
    made.props.window_title = "Sign in to Values"
    made.props.window_width = 640
    made.props.window_height = 480
    made.props.timeout = 42.5
    made.props.ephemeral = True
    made.props.security_keys = False
    made.props.security_keys_in_custom_webview = True
    made.props.provider_id = "values-provider"
    made.props.selection_policy = Policy()
    return made, window


def read(made):
    return {
        "scopes": list(made.props.scopes),
        "login-hint": made.props.login_hint,
        "prompt": made.props.prompt,
        "webview-type": int(made.props.webview_type),
        "parent-window": made.props.parent_window.get_title() if made.props.parent_window else None,
        "custom-webview": type(made.props.custom_webview).__name__,
        "window-title": made.props.window_title,
        "window-width": made.props.window_width,
        "window-height": made.props.window_height,
        "timeout": made.props.timeout,
        "ephemeral": made.props.ephemeral,
        "security-keys": made.props.security_keys,
        "security-keys-in-custom-webview": made.props.security_keys_in_custom_webview,
        "provider-id": made.props.provider_id,
        "selection-policy": type(made.props.selection_policy).__name__,
    }


fresh = WebviewHost.InteractiveParameters()
report["security-key-defaults"] = [fresh.props.security_keys, fresh.props.security_keys_in_custom_webview]
made, window = parameters()
gc.collect()
report["parameters"] = read(made)
gc.collect()
report["parameters-again"] = read(made)
# Unset again: each object property takes None back.
for name in ("parent_window", "custom_webview", "selection_policy", "login_hint", "provider_id"):
    setattr(made.props, name, None)
gc.collect()
report["parameters-cleared"] = [getattr(made.props, name) is None
                                for name in ("parent_window", "custom_webview", "selection_policy", "login_hint", "provider_id")]
window.destroy()

app = WebviewHost.PublicClientApplication(
    client_id="values-client", authority="https://login.example.com/tenant", redirect_uri="http://127.0.0.1/callback",
    token_cache="memory", network_proxy="http://127.0.0.1:3128")
gc.collect()
report["application"] = {name: app.get_property(name)
                         for name in ("client-id", "authority", "redirect-uri", "token-cache", "network-proxy")}

report["error-domain"] = GLib.quark_to_string(WebviewHost.error_quark())

# The values the library hands out (read-only objects): each property has its getter, as C and
# Vala apps read them.
report["properties-without-getter"] = [
    f"{cls.__name__}:{spec.name}"
    for cls in (WebviewHost.Account, WebviewHost.AuthenticationResult, WebviewHost.DeviceCodeChallenge,
                WebviewHost.ProviderInfo, WebviewHost.ProviderSession)
    for spec in GObject.list_properties(cls)
    if not hasattr(cls, "get_" + spec.name.replace("-", "_"))]

provider = Provider()
KIND = WebviewHost.ProviderKind.SYSTEM_BROWSER
report["registered"] = provider.register("values-provider", "Values", KIND, 10, False)
report["unregistered"] = WebviewHost.webview_provider_unregister("values-provider")
report["unregistered-again"] = WebviewHost.webview_provider_unregister("values-provider")
provider.register("values-provider", "Values", KIND, 10, False)
report["unregistered-by-method"] = WebviewHost.WebviewProvider.unregister("values-provider")
gc.collect()

print(json.dumps(report))
