#!/usr/bin/env python3
"""msal-python's side of the token cache interop tests (needs `pip install msal`).

  msal_interop.py read CACHE_FILE [--home-account-id ID] [--client-id ID]
      Loads a cache written by WebviewHost's SignIn with msal.SerializableTokenCache and looks
      entries up with TokenCache.find, as MSAL does. Prints one JSON object: the accounts, the
      refresh, access and ID tokens found (secrets as SHA-256 prefixes) and the top-level
      sections.

  msal_interop.py write CACHE_FILE --authority https://HOST/TENANT --client-id ID
          [--token-endpoint URL] [--issuer ISS] [--sub SUB] [--tid TID] [--oid OID] [--client-info UID.UTID]
      Builds a cache the way msal-python does after an authorization code grant
      (TokenCache.add with a real-looking token response: a JWT ID token, opaque access and
      refresh tokens, expires_in, scope, and client_info when given), serializes it to
      CACHE_FILE and prints what it put there (secrets as SHA-256 prefixes) and the cache keys
      msal-python computed, per section.

  msal_interop.py sign-in CACHE_FILE --authority URL --client-id ID --redirect-uri URI
          --browser-script PATH --username U --password P
      A real msal.PublicClientApplication (oidc_authority=URL) signs in: initiate_auth_code_flow,
      the scripted browser (Tests/Fixtures/Glewlwyd/browser_signin.py) follows the authorization URL,
      acquire_token_by_auth_code_flow redeems the code; the cache is saved to CACHE_FILE.

  msal_interop.py silent CACHE_FILE --authority URL --client-id ID [--force]
      A real msal.PublicClientApplication over CACHE_FILE: get_accounts, then
      acquire_token_silent for the first account (force_refresh with --force: its refresh token
      is spent at the server); the cache is saved back to CACHE_FILE.

For an authority on plain http (the local Glewlwyd test server), allow_loopback_http() lets
msal-python past its one https check (authority.canonicalize refuses any scheme but https):
canonicalize is wrapped so that it computes the host and tenant of the same URL with https,
by msal's own code, and returns them with the http URL. Nothing else of msal changes: its
cache keys are those it computes for the https form of the URL.
"""
import argparse, base64, hashlib, json, os, secrets, subprocess, sys, time, warnings
from urllib.parse import parse_qs, urlparse

import msal

warnings.simplefilter("ignore", DeprecationWarning)  # TokenCache.find is deprecated for search(); same results


def fingerprint(secret):
    return hashlib.sha256(secret.encode()).digest()[:8].hex() if secret else ""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def allow_loopback_http():
    import msal.authority, msal.token_cache
    original = msal.authority.canonicalize

    def canonicalize(url):
        parsed = urlparse(url)
        if parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "::1", "localhost"):
            _, host, tenant = original(parsed._replace(scheme="https").geturl())
            return parsed, host, tenant
        return original(url)

    msal.authority.canonicalize = canonicalize
    msal.token_cache.canonicalize = canonicalize


def keys_of(cache):
    return {section: sorted(entries.keys()) for section, entries in json.loads(cache.serialize()).items()}


def load(path):
    cache = msal.SerializableTokenCache()
    if os.path.exists(path):
        with open(path) as f:
            cache.deserialize(f.read())
    return cache


def save(cache, path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(cache.serialize())


def application(args, cache):
    allow_loopback_http()
    return msal.PublicClientApplication(args.client_id, oidc_authority=args.authority, token_cache=cache)


def describe(result):
    if "error" in result:
        return {"error": result.get("error"), "error_description": result.get("error_description")}
    return {"access_token": fingerprint(result.get("access_token")), "refresh_token": fingerprint(result.get("refresh_token")),
            "sub": result.get("id_token_claims", {}).get("sub"), "token_source": result.get("token_source")}


def sign_in(args):
    cache = load(args.cache_file)
    app = application(args, cache)
    flow = app.initiate_auth_code_flow(["email"], redirect_uri=args.redirect_uri)
    browser = subprocess.run(
        [sys.executable, args.browser_script, "--print-only", "--timeout", "30", "-u", args.username, "-p", args.password,
         flow["auth_uri"]], capture_output=True, text=True, timeout=120)
    lines = [l for l in browser.stdout.splitlines() if l.startswith("REDIRECT_URL=")]
    if browser.returncode != 0 or not lines:
        sys.exit("the scripted browser did not sign in (exit %d): %s" % (browser.returncode, browser.stderr[-2000:]))
    query = {k: v[0] for k, v in parse_qs(urlparse(lines[-1][len("REDIRECT_URL="):]).query).items()}
    result = app.acquire_token_by_auth_code_flow(flow, query)
    save(cache, args.cache_file)
    print(json.dumps(dict(describe(result), accounts=[a["home_account_id"] for a in app.get_accounts()],
                          keys=keys_of(cache), msal_version=msal.__version__), sort_keys=True))


def silent(args):
    cache = load(args.cache_file)
    app = application(args, cache)
    accounts = app.get_accounts()
    out = {"accounts": [{k: a.get(k) for k in ("home_account_id", "environment", "realm", "username")} for a in accounts]}
    if accounts:
        result = app.acquire_token_silent_with_error(["email"], account=accounts[0], force_refresh=args.force)
        out.update(describe(result) if result else {"error": "no token in the cache and no refresh token found"})
    save(cache, args.cache_file)
    out["keys"] = keys_of(cache)
    print(json.dumps(out, sort_keys=True))


def read(args):
    cache = msal.SerializableTokenCache()
    with open(args.cache_file) as f:
        cache.deserialize(f.read())
    CT = msal.TokenCache.CredentialType
    query = {}
    if args.home_account_id:
        query["home_account_id"] = args.home_account_id
    accounts = cache.find(CT.ACCOUNT, query=query)
    rt_query = dict(query)
    if args.client_id:
        rt_query["client_id"] = args.client_id
    refresh_tokens = cache.find(CT.REFRESH_TOKEN, query=rt_query)
    access_tokens = cache.find(CT.ACCESS_TOKEN, query=rt_query)
    id_tokens = cache.find(CT.ID_TOKEN, query=rt_query)
    print(json.dumps({
        "sections": sorted(json.loads(cache.serialize()).keys()),
        "accounts": [{k: a.get(k) for k in ("home_account_id", "environment", "realm", "username", "authority_type", "local_account_id")}
                     for a in accounts],
        "refresh_tokens": [{"home_account_id": r.get("home_account_id"), "client_id": r.get("client_id"),
                            "secret": fingerprint(r.get("secret"))} for r in refresh_tokens],
        "access_tokens": [{"target": a.get("target"), "secret": fingerprint(a.get("secret")),
                           "expires_on": a.get("expires_on"), "cached_at": a.get("cached_at")} for a in access_tokens],
        "id_tokens": len(id_tokens),
        "keys": keys_of(cache),
    }, sort_keys=True))


def write(args):
    authority = args.authority.rstrip("/")
    now = int(time.time())
    sub = args.sub or "msal-python-" + secrets.token_hex(4)
    header = {"alg": "RS256", "kid": "test-key-1", "typ": "JWT"}
    claims = {"iss": args.issuer or authority, "sub": sub, "aud": args.client_id, "iat": now, "nbf": now, "exp": now + 3600,
              "preferred_username": "carol@example.com", "name": "Carol Example", "nonce": secrets.token_hex(8)}
    if args.tid:
        claims["tid"] = args.tid
    if args.oid:
        claims["oid"] = args.oid
    id_token = ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(claims).encode()),
                         b64url(secrets.token_bytes(256))])
    response = {
        "token_type": "Bearer", "scope": "openid profile offline_access User.Read", "expires_in": 3600,
        "ext_expires_in": 3600, "access_token": "eyJ0eXAiOiJKV1Qi." + b64url(secrets.token_bytes(48)),
        "refresh_token": "0.AAAA" + b64url(secrets.token_bytes(64)), "id_token": id_token,
    }
    if args.client_info:
        uid, utid = args.client_info.split(".", 1)
        response["client_info"] = b64url(json.dumps({"uid": uid, "utid": utid}).encode())
    cache = msal.SerializableTokenCache()
    cache.add({
        "client_id": args.client_id,
        "scope": response["scope"].split(),
        "token_endpoint": args.token_endpoint or authority + "/oauth2/v2.0/token",
        "response": response,
        "params": {},
        "data": {"client_id": args.client_id, "scope": response["scope"].split()},
        "grant_type": "authorization_code",
    })
    save(cache, args.cache_file)
    print(json.dumps({"sub": sub, "issuer": claims["iss"], "username": claims["preferred_username"], "keys": keys_of(cache),
                      "access_token": fingerprint(response["access_token"]),
                      "refresh_token": fingerprint(response["refresh_token"]),
                      "msal_version": msal.__version__}, sort_keys=True))


parser = argparse.ArgumentParser()
parser.add_argument("command", choices=["read", "write", "sign-in", "silent"])
parser.add_argument("cache_file")
for option in ("--home-account-id", "--client-id", "--authority", "--token-endpoint", "--issuer", "--sub", "--tid", "--oid",
               "--client-info", "--redirect-uri", "--browser-script", "--username", "--password"):
    parser.add_argument(option)
parser.add_argument("--force", action="store_true")
args = parser.parse_args()
{"read": read, "write": write, "sign-in": sign_in, "silent": silent}[args.command](args)
