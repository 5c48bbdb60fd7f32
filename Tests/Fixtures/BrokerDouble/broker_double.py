#!/usr/bin/env python3
"""A D-Bus double of Microsoft's identity broker (com.microsoft.identity.Broker1), for tests.

Run it on a private bus:  dbus-run-session -- python3 broker_double.py SCENARIO.json
It prints "READY <bus address>" once it owns com.microsoft.identity.broker1 (or, with
"absent": true, once it is on the bus without owning it), then one line per request:
"REQUEST <json>" with {"method", "protocolVersion", "correlationId", "request"} (the request
parsed from its JSON). The scenario (a JSON object) says, per method name:
  {"reply": {...}}         answer this JSON object
  {"hang": true}           never answer; a later cancelInteractiveFlow answers it with a
                           {"error": {"status": "user_cancelled", ...}} response
  {"dbusError": "NAME"}    answer a D-Bus error with this name
  {"vanish": "release"}    give up the bus name and stay connected, without answering
  {"vanish": "exit"}       leave the bus at once (the process exits), without answering
  {"replyText": "..."}     answer this text as is (not JSON, for malformed answers)
Methods the scenario does not name answer the default for "shape": "pre-2.0.2" (the account
inside brokerTokenResponse) or "2.0.2" (the account inside authParameters).
"""
import base64
import json
import os
import sys
import time

from gi.repository import Gio, GLib

NAME = "com.microsoft.identity.broker1"
PATH = "/com/microsoft/identity/broker1"
METHODS = [
    "acquireTokenInteractively", "acquireTokenSilently", "getAccounts", "removeAccount",
    "acquirePrtSsoCookie", "generateSignedHttpRequest", "cancelInteractiveFlow", "getLinuxBrokerVersion",
]
XML = "<node><interface name='com.microsoft.identity.Broker1'>" + "".join(
    f"<method name='{m}'><arg type='s' name='protocolVersion' direction='in'/>"
    f"<arg type='s' name='correlationId' direction='in'/><arg type='s' name='requestJSON' direction='in'/>"
    f"<arg type='s' name='responseJSON' direction='out'/></method>" for m in METHODS) + "</interface></node>"

scenario = json.load(open(sys.argv[1]))
shape = scenario.get("shape", "2.0.2")
loop = GLib.MainLoop()
hanging = []  # invocations waiting for cancelInteractiveFlow
owner_id = 0

ACCOUNT = {
    "username": "alice@contoso.example", "homeAccountId": "alice-oid.contoso-tid",
    "localAccountId": "alice-oid", "realm": "contoso-tid", "clientInfo": "eyJ1aWQiOiJhbGljZS1vaWQifQ",
    "name": "Alice Example", "givenName": "Alice", "familyName": "Example",
    "environment": "login.microsoftonline.com", "someFutureField": {"ignored": True},
}


def b64(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def id_token(client_id):
    now = int(time.time())
    claims = {"iss": "https://login.microsoftonline.com/contoso-tid/v2.0", "sub": "alice-pairwise-sub",
              "aud": client_id, "exp": now + 3600, "iat": now, "name": "Alice Example",
              "preferred_username": "alice@contoso.example", "oid": "alice-oid", "tid": "contoso-tid"}
    return b64({"alg": "RS256", "typ": "JWT", "kid": "broker"}) + "." + b64(claims) + "." + b64({"sig": 1})


def token_reply(request):
    params = request.get("authParameters", {})
    token = {"accessToken": "broker-access-token", "accessTokenType": 0, "idToken": id_token(params.get("clientId", "")),
             "clientInfo": ACCOUNT["clientInfo"], "expiresOn": int(time.time() + 3600) * 1000,
             "grantedScopes": params.get("requestedScopes", []), "extendedLifetimeToken": False, "unknownLater": [1, 2]}
    if shape == "pre-2.0.2":
        token["account"] = ACCOUNT
        return {"brokerTokenResponse": token}
    return {"brokerTokenResponse": token, "authParameters": {"account": ACCOUNT}}


def default_reply(method, request):
    if method in ("acquireTokenInteractively", "acquireTokenSilently"):
        return token_reply(request)
    if method == "getAccounts":
        return {"accounts": [ACCOUNT]}
    if method == "getLinuxBrokerVersion":
        return {"linuxBrokerVersion": "2.0.2" if shape == "2.0.2" else "2.0.1"}
    if method == "acquirePrtSsoCookie":
        cookie = {"cookieName": "x-ms-RefreshTokenCredential", "cookieContent": "cookie"}
        return {"cookieItems": [cookie]} if shape == "2.0.2" else cookie
    if method == "generateSignedHttpRequest":
        return {"signedHttpRequest": "signed"}
    return {}


def handle(connection, sender, path, interface, method, parameters, invocation):
    version, correlation, text = parameters.unpack()
    try:
        request = json.loads(text)
    except ValueError:
        request = {"unparsed": text}
    print("REQUEST " + json.dumps({"method": method, "protocolVersion": version, "correlationId": correlation,
                                   "request": request}), flush=True)
    behaviour = scenario.get(method, {})
    if method == "cancelInteractiveFlow":
        for waiting in hanging:
            answer = {"error": {"status": "user_cancelled", "subStatus": 0, "context": "cancelInteractiveFlow"}}
            waiting.return_value(GLib.Variant("(s)", (json.dumps(answer),)))
        hanging.clear()
    if behaviour.get("hang"):
        hanging.append(invocation)
    elif "dbusError" in behaviour:
        invocation.return_dbus_error(behaviour["dbusError"], "the double was told to fail")
    elif behaviour.get("vanish") == "release":
        Gio.bus_unown_name(owner_id)
        hanging.append(invocation)  # kept, never answered
    elif behaviour.get("vanish") == "exit":
        os._exit(0)
    elif "replyText" in behaviour:
        invocation.return_value(GLib.Variant("(s)", (behaviour["replyText"],)))
    else:
        reply = behaviour["reply"] if "reply" in behaviour else default_reply(method, request)
        invocation.return_value(GLib.Variant("(s)", (json.dumps(reply),)))


def main():
    global owner_id
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    connection.register_object(PATH, node.interfaces[0], handle, None, None)
    address = os.environ["DBUS_SESSION_BUS_ADDRESS"]
    if scenario.get("absent"):
        print("READY " + address, flush=True)
    else:
        def acquired(_connection, _name):
            print("READY " + address, flush=True)

        def lost(_connection, _name):
            print("LOST", flush=True)
        owner_id = Gio.bus_own_name_on_connection(connection, NAME, Gio.BusNameOwnerFlags.NONE, acquired, lost)
    loop.run()


main()
