#!/usr/bin/env python3
"""A D-Bus double of Microsoft's identity broker (com.microsoft.identity.Broker1), for tests.

Built from what real peers send and answer (captures.json beside it, each with its source), not
from this project's client: Edge's captured request, sso-mib's and linux-entra-sso's requests and
test fixtures, and the broker's own answers printed in public bug reports (2.0.1 and 2.5.2).

Run it on a private bus:  dbus-run-session -- python3 broker_double.py SCENARIO.json
It prints "READY <bus address>" once it owns com.microsoft.identity.broker1 (or, with
"absent": true, once it is on the bus without owning it), then one line per request:
"REQUEST <json>" with {"method", "protocolVersion", "correlationId", "request"} (the request
parsed from its JSON). Unknown methods get GDBus's org.freedesktop.DBus.Error.UnknownMethod (the
interface is the real one: eight methods, each (sss) -> (s)).

The scenario (a JSON object):
  "shape": "2.0.2" (default; answers as broker 2.5.2 does) or "2.0.1"
  "omitAccount": true      token answers carry no account (broker 3.0.1, himmelblau)
  "noAccounts": true       getAccounts lists nobody (a device where no one is enrolled)
and per method name:
  {"reply": {...}}         answer this JSON object
  {"status": N}            answer an error with MSALRuntime status N in the shape's error form
  {"hang": true}           never answer; a later cancelInteractiveFlow answers it with status 8
                           (ApplicationCanceled)
  {"dbusError": "NAME"}    answer a D-Bus error with this name (himmelblau answers every failure so)
  {"vanish": "release"}    give up the bus name and stay connected, without answering
  {"vanish": "exit"}       leave the bus at once (the process exits), without answering
  {"replyText": "..."}     answer this text as is (not JSON, or empty)

What it refuses, as current brokers do: a token call whose authParameters.authorizationType does
not match the method (brokers after 2.0.1: 1 silent, 6 interactive, 8 PRT cookie; 2.0.1 also took
8 for every call), answered with status 6 (ApiContractViolation: the real broker's answer to this
is not public; an error in its error form is the guess); a token call without authParameters, a
non-array requestedScopes, or no clientId (status 6); an acquirePrtSsoCookie call without an
http(s) ssoUrl (status 6: linux-entra-sso calls it mandatory) or whose account the broker does
not know (status 2); a silent call whose account is not in
authParameters (2.0.2: status 2, InteractionRequired; 2.0.1 also reads a top-level account).
"""
import base64
import copy
import json
import os
import sys
import time

from gi.repository import Gio, GLib

NAME = "com.microsoft.identity.broker1"
PATH = "/com/microsoft/identity/broker1"
# siemens/sso-mib dbus/spec/com.microsoft.identity.broker1.xml: every method (sss) -> (s).
METHODS = [
    "acquireTokenInteractively", "acquireTokenSilently", "getAccounts", "removeAccount",
    "acquirePrtSsoCookie", "generateSignedHttpRequest", "cancelInteractiveFlow", "getLinuxBrokerVersion",
]
XML = "<node><interface name='com.microsoft.identity.Broker1'>" + "".join(
    f"<method name='{m}'><arg type='s' name='protocolVersion' direction='in'/>"
    f"<arg type='s' name='correlationId' direction='in'/><arg type='s' name='requestJSON' direction='in'/>"
    f"<arg type='s' name='responseJSON' direction='out'/></method>" for m in METHODS) + "</interface></node>"
AUTHORIZATION_TYPE = {"acquireTokenSilently": 1, "acquireTokenInteractively": 6, "acquirePrtSsoCookie": 8}

CAPTURES = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures.json")))
scenario = json.load(open(sys.argv[1]))
shape = scenario.get("shape", "2.0.2")
loop = GLib.MainLoop()
hanging = []  # interactive calls waiting for cancelInteractiveFlow
owner_id = 0

# The person enrolled on this double's machine. The tenant and object IDs are GUIDs, as the real
# broker's are (sso-mib refuses a realm that is not one).
TENANT = "6f2c1a3e-0b7d-4e59-9a8c-3d1e2f4a5b6c"
OBJECT = "a1b2c3d4-e5f6-4789-8abc-def012345678"


def b64(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def account():
    """The account in the shape's form: the captured object's keys, this person's values."""
    template = copy.deepcopy(CAPTURES["account_" + shape]["account"])
    values = {
        "clientInfo": b64({"uid": OBJECT, "utid": TENANT}), "givenName": "Alice", "familyName": "Example",
        "homeAccountId": f"{OBJECT}.{TENANT}", "localAccountId": OBJECT, "name": "Alice Example",
        "realm": TENANT, "username": "alice@contoso.example",
    }
    for key in template:
        if key in values:
            template[key] = values[key]
    return template


def id_token(client_id):
    now = int(time.time())
    claims = {"iss": f"https://login.microsoftonline.com/{TENANT}/v2.0", "sub": "alice-pairwise-sub",
              "aud": client_id, "exp": now + 3600, "iat": now, "name": "Alice Example",
              "preferred_username": "alice@contoso.example", "oid": OBJECT, "tid": TENANT, "ver": "2.0"}
    return b64({"alg": "RS256", "typ": "JWT", "kid": "broker"}) + "." + b64(claims) + "." + b64({"sig": 1})


def token_answer(request):
    """sso-mib's TOKEN_RESPONSE keys (accessTokenType an integer, expiresOn in milliseconds,
    grantedScopes one space-separated string), with this request's values."""
    params = request.get("authParameters", {})
    token = copy.deepcopy(CAPTURES["token_sso-mib"]["answer"]["brokerTokenResponse"])
    token.update({
        "accessToken": "broker-access-token", "idToken": id_token(params.get("clientId", "")),
        "clientInfo": b64({"uid": OBJECT, "utid": TENANT}), "expiresOn": int(time.time() + 3600) * 1000,
        "grantedScopes": " ".join(params.get("requestedScopes", [])), "account": account(),
    })
    if shape == "2.0.1":
        token["extendedExpiresOn"] = token["expiresOn"]
    if scenario.get("omitAccount"):
        del token["account"]
    answer = {"brokerTokenResponse": token}
    answer["telemetry"] = copy.deepcopy(CAPTURES["error_" + shape]["answer"]["telemetry"])
    return answer


def error_answer(status, method):
    """The shape's captured error answer with this status (2.0.1: issue 114; 2.5.2: issue 129)."""
    answer = copy.deepcopy(CAPTURES["error_" + shape]["answer"])
    answer["brokerTokenResponse"]["error"]["status"] = status
    answer["brokerTokenResponse"]["error"]["context"] = f"the double answers {method} with status {status}"
    if "api_name" in answer["telemetry"]:
        answer["telemetry"]["api_name"] = method
    return answer


def prt_sso_cookie_answer(request):
    """The shape's captured answer with this person's account and a cookie that names the
    request's ssoUrl (a JWT in form, as the real cookie is; nothing checks its signature)."""
    answer = copy.deepcopy(CAPTURES["prtSsoCookie_" + shape]["answer"])
    answer["account"] = account()
    content = b64({"alg": "HS256", "kdf_ver": 2, "ctx": "double"}) + "." + b64(
        {"refresh_token": "double-prt", "is_primary": "true", "request_nonce": request.get("ssoUrl", ""),
         "iat": int(time.time())}) + "." + b64({"sig": 1})
    if "cookieItems" in answer:
        answer["cookieItems"][0]["cookieContent"] = content
    else:
        answer["cookieContent"] = content
    return answer


def refusal(method, request):
    """The status a broker of this shape refuses the request with, or None."""
    if method not in AUTHORIZATION_TYPE:
        return None
    params = request.get("authParameters")
    if not isinstance(params, dict) or not isinstance(params.get("requestedScopes"), list) or not params.get("clientId"):
        return 6
    allowed = {AUTHORIZATION_TYPE[method]} | ({8} if shape == "2.0.1" else set())
    if params.get("authorizationType") not in allowed:
        return 6
    if method == "acquirePrtSsoCookie":
        # linux-entra-sso: ssoUrl is mandatory; the cookie is for an account the broker knows.
        if not isinstance(request.get("ssoUrl"), str) or not request["ssoUrl"].startswith(("https://", "http://")):
            return 6
        asked = request.get("account") or params.get("account")
        if not isinstance(asked, dict) or asked.get("homeAccountId") != f"{OBJECT}.{TENANT}":
            return 2
    if method == "acquireTokenSilently":
        asked = params.get("account") or (request.get("account") if shape == "2.0.1" else None)
        if not isinstance(asked, dict) or asked.get("homeAccountId") != f"{OBJECT}.{TENANT}":
            return 2
    return None


def default_reply(method, request):
    if method in ("acquireTokenInteractively", "acquireTokenSilently"):
        return token_answer(request)
    if method == "getAccounts":
        return {"accounts": [] if scenario.get("noAccounts") else [account()]}
    if method == "getLinuxBrokerVersion":
        return {"linuxBrokerVersion": "2.0.1" if shape == "2.0.1" else "2.5.2"}
    if method == "acquirePrtSsoCookie":
        return prt_sso_cookie_answer(request)
    if method == "generateSignedHttpRequest":
        return {"signedHttpRequest": "signed"}
    return {}


def answer(invocation, reply):
    invocation.return_value(GLib.Variant("(s)", (json.dumps(reply),)))


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
            answer(waiting, error_answer(8, "acquireTokenInteractively"))
        hanging.clear()
    refused = refusal(method, request) if isinstance(request, dict) else 6
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
    elif "reply" in behaviour:
        answer(invocation, behaviour["reply"])
    elif "status" in behaviour:
        answer(invocation, error_answer(behaviour["status"], method))
    elif refused is not None:
        answer(invocation, error_answer(refused, method))
    else:
        answer(invocation, default_reply(method, request))


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
