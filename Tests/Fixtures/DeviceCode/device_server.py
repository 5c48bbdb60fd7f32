#!/usr/bin/env python3
"""A scripted OpenID provider for the device authorization grant (RFC 8628), on 127.0.0.1, for
what a real server (Glewlwyd, in the other tests) cannot be made to answer. Needs the
`cryptography` and `PyJWT` packages (which msal depends on).

    device_server.py STATE_DIR SCENARIO

Serves discovery (with device_authorization_endpoint), its key set, the device authorization
endpoint and the token endpoint. Writes STATE_DIR/ready (JSON: issuer) once listening, appends
one line per token request to STATE_DIR/polls.log ("<unix time> <answer>"), and exits when
STATE_DIR/stop appears (300 s at most).

Scenarios (the token endpoint's answers, in turn; the last one repeats):
  approve            authorization_pending twice, then tokens (an RS256 ID token without nonce)
  slow-down          slow_down twice, then authorization_pending, then tokens
  denied             authorization_pending, then access_denied
  entra-blocked      authorization_pending, then Microsoft Entra ID's Conditional Access refusal
                     (400 invalid_grant, AADSTS53003, error_codes [53003])
  unknown-error      authorization_pending, then {"error": "something_else"}
  flaky              a 503, a dropped connection, a 502 with HTML, then tokens
  expired            expired_token at once
  expire-quickly     the code lives 3 s; authorization_pending for ever
  pending            authorization_pending for ever (the code lives 600 s)
  huge-interval      interval 1000000, the code lives 4 s; tokens if ever asked
  verification-url   the old spelling (verification_url), no verification_uri_complete; then tokens
  malformed          the device authorization answer is cut JSON
  no-id-token        authorization_pending, then tokens without an ID token (django-oauth-toolkit's
                     device grant); discovery has a userinfo endpoint that names the person for the
                     issued access token only (STATE_DIR/userinfo.log: one line per request, "ok" or "refused")
  no-id-token-no-userinfo   tokens without an ID token, and no userinfo endpoint
  userinfo-refuses   tokens without an ID token; the userinfo endpoint answers 401
  bad-id-token       tokens with an ID token signed by a key the provider does not publish
"""
import base64, http.server, json, os, secrets, sys, threading, time, urllib.parse

CLIENT = "device-tests"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main(state, scenario):
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "RSA", "use": "sig", "kid": "device", "alg": "RS256",
           "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")), "e": b64url(numbers.e.to_bytes(3, "big"))}
    answers = {
        "approve": ["pending", "pending", "tokens"],
        "slow-down": ["slow_down", "slow_down", "pending", "tokens"],
        "denied": ["pending", "denied"],
        "entra-blocked": ["pending", "blocked"],
        "unknown-error": ["pending", "unknown"],
        "flaky": ["503", "drop", "502", "tokens"],
        "expired": ["expired"],
        "expire-quickly": ["pending"],
        "pending": ["pending"],
        "huge-interval": ["tokens"],
        "verification-url": ["tokens"],
        "malformed": ["pending"],
        "no-id-token": ["pending", "tokens"],
        "no-id-token-no-userinfo": ["tokens"],
        "userinfo-refuses": ["tokens"],
        "bad-id-token": ["tokens"],
    }[scenario]
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issued_access_tokens = set()
    userinfo_log = open(os.path.join(state, "userinfo.log"), "a", buffering=1)
    polls = open(os.path.join(state, "polls.log"), "a", buffering=1)
    count = {"n": 0}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body, content_type="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/.well-known/openid-configuration":
                document = {"issuer": issuer, "authorization_endpoint": origin + "/authorize", "token_endpoint": origin + "/token",
                            "jwks_uri": origin + "/keys", "device_authorization_endpoint": origin + "/device"}
                if scenario != "no-id-token-no-userinfo":
                    document["userinfo_endpoint"] = origin + "/userinfo"
                self.reply(200, document)
            elif self.path == "/userinfo":
                token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                if scenario == "userinfo-refuses" or token not in issued_access_tokens:
                    userinfo_log.write("refused\n")
                    return self.reply(401, {"error": "invalid_token"})
                userinfo_log.write("ok\n")
                self.reply(200, {"sub": "device-person", "preferred_username": "dana@example.com", "name": "Dana Device",
                                 "email": "dana@example.com"})
            elif self.path == "/keys":
                self.reply(200, {"keys": [jwk]})
            else:
                self.reply(404, {"error": "not_found"})

        def do_POST(self):
            form = {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
            if self.path == "/device":
                if scenario == "malformed":
                    return self.reply(200, b'{"device_code": "dc", "user_code": "ABCD-')
                body = {"device_code": "dc-" + secrets.token_urlsafe(8), "user_code": "WDJB-MJHT", "expires_in": 600, "interval": 1}
                link = origin + "/activate"
                if scenario == "verification-url":
                    body["verification_url"] = link
                else:
                    body["verification_uri"] = link
                    body["verification_uri_complete"] = link + "?user_code=WDJB-MJHT"
                if scenario == "expire-quickly":
                    body["expires_in"] = 3
                if scenario == "huge-interval":
                    body["interval"], body["expires_in"] = 1000000, 4
                body["message"] = "To sign in, use a web browser to open the page %s and enter the code WDJB-MJHT." % link
                return self.reply(200, body)
            if self.path != "/token" or form.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code":
                return self.reply(400, {"error": "unsupported_grant_type"})
            answer = answers[min(count["n"], len(answers) - 1)]
            count["n"] += 1
            polls.write("%.3f %s\n" % (time.time(), answer))
            if answer == "pending":
                return self.reply(400, {"error": "authorization_pending"})
            if answer == "slow_down":
                return self.reply(400, {"error": "slow_down"})
            if answer == "denied":
                return self.reply(400, {"error": "access_denied", "error_description": "The user declined."})
            if answer == "expired":
                return self.reply(400, {"error": "expired_token"})
            if answer == "unknown":
                return self.reply(400, {"error": "something_else", "error_description": "A new error."})
            if answer == "blocked":
                return self.reply(400, {"error": "invalid_grant", "error_codes": [53003], "error_description":
                                        "AADSTS53003: Access has been blocked by Conditional Access policies. The access policy does not allow token issuance."})
            if answer == "503":
                return self.reply(503, b"Service Unavailable", "text/plain")
            if answer == "502":
                return self.reply(502, b"<html><body>Bad gateway</body></html>", "text/html")
            if answer == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            now = int(time.time())
            claims = {"iss": issuer, "aud": CLIENT, "sub": "device-person", "iat": now, "exp": now + 3600,
                      "preferred_username": "dana@example.com", "name": "Dana Device"}
            access_token = "at-" + secrets.token_urlsafe(12)
            issued_access_tokens.add(access_token)
            body = {"token_type": "Bearer", "expires_in": 3600, "scope": "openid profile offline_access",
                    "access_token": access_token, "refresh_token": "rt-" + secrets.token_urlsafe(12)}
            if scenario == "bad-id-token":
                body["id_token"] = jwt.encode(claims, other_key, algorithm="RS256", headers={"kid": "device"})
            elif scenario not in ("no-id-token", "no-id-token-no-userinfo", "userinfo-refuses"):
                body["id_token"] = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "device"})
            self.reply(200, body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    origin = "http://127.0.0.1:%d" % server.server_address[1]
    issuer = origin
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(state, "ready.tmp"), "w") as f:
        json.dump({"issuer": issuer, "clientID": CLIENT}, f)
    os.rename(os.path.join(state, "ready.tmp"), os.path.join(state, "ready"))
    deadline = time.time() + 300
    while time.time() < deadline and not os.path.exists(os.path.join(state, "stop")):
        time.sleep(0.1)
    server.shutdown()


if len(sys.argv) == 3:
    main(sys.argv[1], sys.argv[2])
else:
    sys.exit(__doc__)
