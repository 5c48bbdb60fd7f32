#!/usr/bin/env python3
"""Copies webauthn-page.js and webauthn-relay.js into ../WebAuthnScripts.swift as Swift raw
strings, which both embedded providers compile in (no resource bundle to find at run time).

    python3 Sources/EmbeddedWebviewShared/WebAuthn/embed.py          # after editing a script
    python3 Sources/EmbeddedWebviewShared/WebAuthn/embed.py --check  # fails when the Swift copy is stale

The .js files are the ones to edit (and what Tests/Fixtures/WebAuthn/harness/harness.js runs).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(os.path.dirname(HERE), "WebAuthnScripts.swift")


def literal(path):
    text = open(os.path.join(HERE, path), encoding="utf-8").read().rstrip("\n")
    if '"""#' in text:
        raise SystemExit(f'{path} contains """#, which would end the Swift raw string')
    return '#"""\n' + text + '\n"""#'


def swift():
    return f'''// Generated from WebAuthn/webauthn-page.js and WebAuthn/webauthn-relay.js by WebAuthn/embed.py:
// edit those, then run `python3 Sources/EmbeddedWebviewShared/WebAuthn/embed.py`.

/// The two user scripts of ``WebAuthnBridge``, compiled into both embedded providers.
enum WebAuthnScripts {{
    /// The page's world, top frame, at document start: `PublicKeyCredential`,
    /// `navigator.credentials`, each call sent as a DOM event carrying a JSON string.
    static let page = {literal("webauthn-page.js")}

    /// The library's own script world (`webviewhost-webauthn`), top frame, at document start: the
    /// relay between the page's events and the message channel, adding the frame's origin and its
    /// user activation as that world sees them.
    static let relay = {literal("webauthn-relay.js")}
}}
'''


if __name__ == "__main__":
    wanted = swift()
    current = open(TARGET, encoding="utf-8").read() if os.path.exists(TARGET) else ""
    if "--check" in sys.argv:
        if current != wanted:
            raise SystemExit("WebAuthnScripts.swift is not what embed.py makes of the .js files: run embed.py")
    elif current != wanted:
        open(TARGET, "w", encoding="utf-8").write(wanted)
