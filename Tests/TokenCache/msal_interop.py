#!/usr/bin/env python3
"""msal-python's side of the token cache interop tests (needs `pip install msal`).

  msal_interop.py read CACHE_FILE [--home-account-id ID] [--client-id ID]
      Loads a cache written by WebviewHost's SignIn with msal.SerializableTokenCache and looks
      entries up with TokenCache.find, as MSAL does. Prints one JSON object: the accounts, the
      refresh, access and ID tokens found (secrets as SHA-256 prefixes) and the top-level
      sections.

  msal_interop.py write CACHE_FILE --authority https://HOST/TENANT --client-id ID
      Builds a cache the way msal-python does after an authorization code grant
      (TokenCache.add with a real-looking token response: a JWT ID token, opaque access and
      refresh tokens, expires_in, scope), serializes it to CACHE_FILE and prints what it put
      there (secrets as SHA-256 prefixes).
"""
import argparse, base64, hashlib, json, os, secrets, sys, time, warnings

import msal

warnings.simplefilter("ignore", DeprecationWarning)  # TokenCache.find is deprecated for search(); same results


def fingerprint(secret):
    return hashlib.sha256(secret.encode()).digest()[:8].hex() if secret else ""


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


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
    }, sort_keys=True))


def write(args):
    authority = args.authority.rstrip("/")
    now = int(time.time())
    sub = "msal-python-" + secrets.token_hex(4)
    header = {"alg": "RS256", "kid": "test-key-1", "typ": "JWT"}
    claims = {"iss": authority, "sub": sub, "aud": args.client_id, "iat": now, "nbf": now, "exp": now + 3600,
              "preferred_username": "carol@example.com", "name": "Carol Example", "nonce": secrets.token_hex(8)}
    id_token = ".".join([b64url(json.dumps(header).encode()), b64url(json.dumps(claims).encode()),
                         b64url(secrets.token_bytes(256))])
    response = {
        "token_type": "Bearer", "scope": "openid profile offline_access User.Read", "expires_in": 3600,
        "ext_expires_in": 3600, "access_token": "eyJ0eXAiOiJKV1Qi." + b64url(secrets.token_bytes(48)),
        "refresh_token": "0.AAAA" + b64url(secrets.token_bytes(64)), "id_token": id_token,
    }
    cache = msal.SerializableTokenCache()
    cache.add({
        "client_id": args.client_id,
        "scope": response["scope"].split(),
        "token_endpoint": authority + "/oauth2/v2.0/token",
        "response": response,
        "params": {},
        "data": {"client_id": args.client_id, "scope": response["scope"].split()},
        "grant_type": "authorization_code",
    })
    fd = os.open(args.cache_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(cache.serialize())
    print(json.dumps({"sub": sub, "issuer": authority, "username": claims["preferred_username"],
                      "access_token": fingerprint(response["access_token"]),
                      "refresh_token": fingerprint(response["refresh_token"]),
                      "msal_version": msal.__version__}, sort_keys=True))


parser = argparse.ArgumentParser()
parser.add_argument("command", choices=["read", "write"])
parser.add_argument("cache_file")
parser.add_argument("--home-account-id")
parser.add_argument("--client-id")
parser.add_argument("--authority")
args = parser.parse_args()
read(args) if args.command == "read" else write(args)
