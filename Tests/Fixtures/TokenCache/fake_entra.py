#!/usr/bin/env python3
"""A stand-in for Microsoft Entra ID on 127.0.0.1, for the client_info tests (needs the
`cryptography` and `PyJWT` packages, which msal depends on).

  fake_entra.py serve STATE_DIR
      Serves one tenant at http://127.0.0.1:PORT/<tenant>/v2.0: a discovery document with
      Entra's `cloud_instance_name`, its key set, an authorization endpoint that redirects at
      once with a code, and a token endpoint that answers `authorization_code` and
      `refresh_token` grants with RS256 ID tokens (pairwise `sub`, `oid`, `tid`) and, when the
      request carried `client_info=1`, Entra's `client_info` (base64url {"uid": oid, "utid":
      home tenant}). Writes STATE_DIR/ready (the issuer, tenant, oid, home tenant and sub as
      JSON) once listening, appends each request's `client_info` value (or "absent") to
      STATE_DIR/requests.log and each authorization request's Cookie header (or "none") to
      STATE_DIR/cookies.log (and its User-Agent to STATE_DIR/user-agents.log), and exits when
      STATE_DIR/stop appears (300 s at most). With FAKE_ENTRA_PLAIN=1 the discovery document
      has none of Entra's own keys: a provider the library does not take for Entra ID.

  fake_entra.py --print-only [...] AUTHORIZATION_URL
      The "browser": fetches the URL without following the redirect and prints
      REDIRECT_URL=<Location> (the arguments of Tests/Fixtures/Glewlwyd/browser_signin.py are accepted).
"""
import base64, http.server, json, os, secrets, sys, threading, time, urllib.parse, urllib.request

TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"  # the resource tenant
HOME_TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"  # the person's home tenant (a guest)
OID = "00000000-0000-0000-66f3-3332eca7ea81"
SUB = "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ"  # pairwise: not the oid


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def browse(url):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(url, timeout=15)
    except urllib.error.HTTPError as error:
        if error.code in (301, 302, 303, 307):
            print("REDIRECT_URL=" + error.headers["Location"])
            return 0
        print("HTTP %d" % error.code, file=sys.stderr)
    return 1


def serve(state):
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "RSA", "use": "sig", "kid": "fake-entra", "alg": "RS256",
           "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")), "e": b64url(numbers.e.to_bytes(3, "big"))}
    codes = {}
    log = open(os.path.join(state, "requests.log"), "a", buffering=1)
    cookies = open(os.path.join(state, "cookies.log"), "a", buffering=1)
    agents = open(os.path.join(state, "user-agents.log"), "a", buffering=1)
    plain = os.environ.get("FAKE_ENTRA_PLAIN") == "1"

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body=None, headers=()):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
            base = "/%s" % TENANT
            if url.path == base + "/v2.0/.well-known/openid-configuration":
                document = {"issuer": issuer, "authorization_endpoint": origin + base + "/oauth2/v2.0/authorize",
                            "token_endpoint": origin + base + "/oauth2/v2.0/token", "jwks_uri": origin + base + "/discovery/v2.0/keys",
                            "cloud_instance_name": "microsoftonline.com", "tenant_region_scope": "EU"}
                if plain:
                    del document["cloud_instance_name"], document["tenant_region_scope"]
                self.reply(200, document)
            elif url.path == base + "/discovery/v2.0/keys":
                self.reply(200, {"keys": [jwk]})
            elif url.path == base + "/oauth2/v2.0/authorize":
                log.write("authorize client_info=%s\n" % query.get("client_info", "absent"))
                cookies.write("%s\n" % (self.headers.get("Cookie") or "none"))
                agents.write("%s\n" % (self.headers.get("User-Agent") or "none"))
                code = secrets.token_urlsafe(16)
                codes[code] = query.get("nonce")
                target = query["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": query.get("state", "")})
                self.reply(302, headers=[("Location", target)])
            else:
                self.reply(404, {"error": "not_found"})

        def do_POST(self):
            form = {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
            log.write("token %s client_info=%s\n" % (form.get("grant_type"), form.get("client_info", "absent")))
            if form.get("grant_type") == "authorization_code" and form.get("code") in codes:
                nonce = codes.pop(form["code"])
            elif form.get("grant_type") == "refresh_token" and form.get("refresh_token", "").startswith("rt-"):
                nonce = None
            else:
                return self.reply(400, {"error": "invalid_grant"})
            now = int(time.time())
            claims = {"iss": issuer, "aud": form.get("client_id"), "sub": SUB, "oid": OID, "tid": TENANT, "iat": now, "nbf": now,
                      "exp": now + 3600, "preferred_username": "guest@fabrikam.example", "name": "Guest Example", "ver": "2.0"}
            if nonce:
                claims["nonce"] = nonce
            body = {"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "scope": "openid profile offline_access User.Read",
                    "access_token": "at-" + secrets.token_urlsafe(24), "refresh_token": "rt-" + secrets.token_urlsafe(24),
                    "id_token": jwt.encode(claims, key, algorithm="RS256", headers={"kid": "fake-entra"})}
            if form.get("client_info") == "1":
                body["client_info"] = b64url(json.dumps({"uid": OID, "utid": HOME_TENANT}).encode())
            self.reply(200, body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    origin = "http://127.0.0.1:%d" % server.server_address[1]
    issuer = origin + "/%s/v2.0" % TENANT
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(state, "ready.tmp"), "w") as f:
        json.dump({"issuer": issuer, "tenant": TENANT, "homeTenant": HOME_TENANT, "oid": OID, "sub": SUB}, f)
    os.rename(os.path.join(state, "ready.tmp"), os.path.join(state, "ready"))
    deadline = time.time() + 300
    while time.time() < deadline and not os.path.exists(os.path.join(state, "stop")):
        time.sleep(0.1)
    server.shutdown()


if len(sys.argv) >= 3 and sys.argv[1] == "serve":
    serve(sys.argv[2])
elif "--print-only" in sys.argv:
    sys.exit(browse(sys.argv[-1]))
else:
    sys.exit(__doc__)
