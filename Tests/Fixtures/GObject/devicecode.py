#!/usr/bin/env python3
"""A Python (PyGObject) GTK 3 app that signs in on another device through WebviewHost's GObject
layer (WebviewHost-3.0), showing the code itself (DeviceCodeDisplay.APP), under
G_DEBUG=fatal-criticals, and prints what it saw as JSON. When the code arrives it starts
APPROVE_COMMAND with the code as its last argument (the person, on their phone); it keeps the
challenge past the signal and reads every getter and property again after the sign-in, the
collector run in between.

  devicecode.py CLIENT_ID ISSUER APPROVE_COMMAND...
    DEVICECODE_TOKEN_CACHE in the environment: the application's token-cache (default memory;
    file:PATH for a sign-in that accounts.py's restart mode reads in a new process)
"""
import gc
import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebviewHost", "3.0")
from gi.repository import Gio, GLib, Gtk, WebviewHost  # noqa: E402, F401 (Gtk: initialised as in every app)

client_id, issuer = sys.argv[1:3]
approve = sys.argv[3:]
report = {}
kept = []
loop = GLib.MainLoop()


def challenge_facts(challenge):
    pairs = {
        "user_code": (challenge.get_user_code(), challenge.props.user_code),
        "verification_uri": (challenge.get_verification_uri(), challenge.props.verification_uri),
        "verification_uri_complete": (challenge.get_verification_uri_complete(), challenge.props.verification_uri_complete),
        "expires_on": (challenge.get_expires_on(), challenge.props.expires_on),
        "message": (challenge.get_message(), challenge.props.message),
        "instructions": (challenge.get_instructions(), challenge.props.instructions),
    }
    return {
        "differing": [name for name, (getter, prop) in pairs.items() if getter != prop],
        "userCode": challenge.get_user_code(),
        "verificationUri": challenge.get_verification_uri(),
        "expiresInFuture": challenge.get_expires_on() > time.time(),
        "instructionsMentionCode": challenge.get_user_code() in challenge.get_instructions(),
    }


def on_code(_app, challenge):
    kept.append(challenge)
    gc.collect()
    report["challenge"] = challenge_facts(challenge)
    Gio.Subprocess.new(approve + [challenge.get_user_code()], Gio.SubprocessFlags.STDOUT_SILENCE)


def done(app, result, _data):
    try:
        tokens = app.acquire_token_with_device_code_finish(result)
        report["outcome"] = "success"
        report["username"] = tokens.props.account.props.username
        report["hasRefreshToken"] = tokens.props.has_refresh_token
    except GLib.Error as error:
        report["outcome"] = "error"
        report["error"] = {"domain": GLib.quark_to_string(error.domain), "code": error.code, "message": error.message}
    gc.collect()
    if kept:
        report["challengeAfter"] = challenge_facts(kept[0])
    loop.quit()


app = WebviewHost.PublicClientApplication(client_id=client_id, authority=issuer,
                                          redirect_uri="http://127.0.0.1/callback",
                                          token_cache=os.environ.get("DEVICECODE_TOKEN_CACHE", "memory"))
app.init(None)
app.connect("device-code", on_code)
app.acquire_token_with_device_code_async(["openid", "profile", "email", "offline_access"], WebviewHost.DeviceCodeDisplay.APP,
                                         None, None, done, None)
GLib.timeout_add_seconds(170, lambda: (report.update(outcome="timeout"), loop.quit()))
loop.run()
print(json.dumps(report))
