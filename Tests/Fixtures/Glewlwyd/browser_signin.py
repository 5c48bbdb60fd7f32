#!/usr/bin/env python3
"""Scripted "browser" for Glewlwyd's login webapp (standard library only).

Given an OAuth2/OIDC authorization URL of the local Glewlwyd instance, perform the
sign-in exactly over HTTP the way Glewlwyd's JavaScript login page (login.html) does:

  1. GET  <authorization URL>                  -> 302 login.html?client_id=..&scope=..&callback_url=..
  2. GET  login.html, config.json, <GlewlwydUrl>config   (what the page loads; gives the API prefix)
  3. POST <api>/auth/  {"username","password"}  -> session cookie GLEWLWYD2_SESSION_ID
  4. GET  <api>/auth/grant/<client_id>/<scope>  -> which scopes this user already granted the client
  5. PUT  <api>/auth/grant/<client_id> {"scope": "a b c"}   only if something is not granted
     (this is the consent screen's "grant" action)
  6. GET  <callback_url>&g_continue            -> the login page's "Continue" button
                                                -> 302 <redirect_uri>?code=..&state=..
  7. GET  <redirect_uri>?code=..  (our loopback listener) unless --print-only / non-http scheme

Usage:
  browser_signin.py [options] AUTHORIZATION_URL
Options:
  -u/--username, -p/--password   (default: $GLEWLWYD_USERNAME / $GLEWLWYD_PASSWORD, else alice / alice-password)
  --print-only                   print the final redirect URL (with code) instead of fetching it
  --no-consent                   fail if the consent screen would be shown instead of granting
  --timeout SECONDS              per-request timeout (default 15)
  -v/--verbose                   log each HTTP step on stderr
Exit status: 0 success, 1 sign-in failure, 2 usage error, 3 the provider redirected with ?error=.
On success the final redirect URL is printed on stdout as the last line ("REDIRECT_URL=<url>").
"""
import argparse
import http.cookiejar
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

USER_AGENT = "WebviewHost-browser_signin/1.0 (Glewlwyd test driver)"


class Failure(Exception):
    pass


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """We follow redirects ourselves to see every Location."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Browser:
    def __init__(self, timeout, verbose):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.timeout = timeout
        self.verbose = verbose

    def log(self, msg):
        if self.verbose:
            print("browser_signin: " + msg, file=sys.stderr)

    def request(self, method, url, body=None, headers=None):
        """Returns (status, headers, text). Never raises for HTTP status codes."""
        hdrs = {"User-Agent": USER_AGENT, "Accept": "*/*"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
        try:
            with self.opener.open(req, timeout=self.timeout) as r:
                status, rh, raw = r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            status, rh, raw = e.code, e.headers, e.read()
        except (urllib.error.URLError, OSError) as e:
            raise Failure("%s %s: connection failed: %s" % (method, url, getattr(e, "reason", e)))
        text = raw.decode("utf-8", errors="replace")
        self.log("%s %s -> %d%s" % (method, url, status,
                                    (" Location: " + rh["Location"]) if rh.get("Location") else ""))
        return status, rh, text

    def json_request(self, method, url, body=None, expect=(200,)):
        status, _, text = self.request(method, url, body, {"Accept": "application/json"})
        if status not in expect:
            raise Failure("%s %s -> HTTP %d %s" % (method, url, status, text[:300]))
        try:
            return status, (json.loads(text) if text.strip() else None)
        except ValueError:
            raise Failure("%s %s: invalid JSON: %r" % (method, url, text[:200]))


def is_http(url):
    return urllib.parse.urlsplit(url).scheme in ("http", "https")


def check_oauth_error(url):
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    frag = urllib.parse.parse_qs(urllib.parse.urlsplit(url).fragment)
    err = (q.get("error") or frag.get("error") or [None])[0]
    if err:
        desc = (q.get("error_description") or frag.get("error_description") or [""])[0]
        return "%s%s" % (err, (": " + desc) if desc else "")
    return None


def sign_in(auth_url, username, password, allow_consent, b):
    # 1. authorization request
    status, h, text = b.request("GET", auth_url)
    if status != 302 or not h.get("Location"):
        raise Failure("authorization URL answered HTTP %d (expected a 302 redirect). "
                      "Unregistered redirect_uri or unknown client_id gives 403. Body: %s"
                      % (status, text[:300]))
    loc = urllib.parse.urljoin(auth_url, h["Location"])
    origin = "%s://%s" % urllib.parse.urlsplit(auth_url)[:2]

    if not loc.startswith(origin + "/") or "callback_url=" not in loc:
        # Already signed in with g_continue, or an error redirect: straight to redirect_uri.
        return loc

    # 2. the login page and what it loads
    login_url = loc
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(login_url).query)
    client_id = (q.get("client_id") or [None])[0]
    scope = (q.get("scope") or [""])[0]
    callback_url = (q.get("callback_url") or [None])[0]
    if not client_id or not callback_url:
        raise Failure("login page URL lacks client_id/callback_url: " + login_url)
    status, _, _ = b.request("GET", login_url)
    if status != 200:
        raise Failure("login page %s answered HTTP %d" % (login_url, status))
    _, webcfg = b.json_request("GET", urllib.parse.urljoin(login_url, "config.json"))
    glewlwyd_url = urllib.parse.urljoin(login_url, (webcfg or {}).get("GlewlwydUrl", "./"))
    _, srvcfg = b.json_request("GET", urllib.parse.urljoin(glewlwyd_url, "config"))
    api = urllib.parse.urljoin(glewlwyd_url, (srvcfg or {}).get("api_prefix", "api")).rstrip("/")

    # 3. username/password (the form's "Log in" button)
    status, _, text = b.request("POST", api + "/auth/", {"username": username, "password": password})
    if status == 401:
        raise Failure("login rejected for user %r: wrong username or password (HTTP 401)" % username)
    if status != 200:
        raise Failure("POST %s/auth/ -> HTTP %d %s" % (api, status, text[:300]))

    # 3b. all requested scopes must be authenticated by the password (no extra scheme)
    _, schemes = b.json_request("GET", api + "/auth/scheme/?scope=" + urllib.parse.quote(scope))
    for name, info in (schemes or {}).items():
        if not info.get("available", True):
            raise Failure("scope %r is not available for user %r (add it to the user's scopes)"
                          % (name, username))
        if info.get("password_required") and not info.get("password_authenticated"):
            raise Failure("scope %r still requires a password" % name)
        if info.get("scheme_required") or any(
                not s.get("scheme_authenticated")
                for grp in (info.get("schemes") or {}).values() for s in grp):
            raise Failure("scope %r requires an additional authentication scheme "
                          "(not supported by this script)" % name)

    # 4./5. consent
    quoted = urllib.parse.quote(client_id, safe="")
    _, grant = b.json_request("GET", "%s/auth/grant/%s/%s" % (api, quoted, urllib.parse.quote(scope)))
    scopes = (grant or {}).get("scope", [])
    missing = [s["name"] for s in scopes if not s.get("granted")]
    if missing:
        if not allow_consent:
            raise Failure("consent screen would be shown: scopes %s not granted to client %r"
                          % (" ".join(missing), client_id))
        granted = [s["name"] for s in scopes]
        print("browser_signin: consent screen: granting %s to %s" % (" ".join(granted), client_id),
              file=sys.stderr)
        b.json_request("PUT", "%s/auth/grant/%s" % (api, quoted), {"scope": " ".join(granted)})
    else:
        b.log("all scopes already granted, no consent screen")

    # 6. "Continue" button: callback_url + g_continue
    cont = callback_url + ("&g_continue" if "?" in callback_url else "?g_continue")
    url = cont
    for _ in range(10):
        status, h, text = b.request("GET", url)
        if status not in (301, 302, 303, 307, 308) or not h.get("Location"):
            raise Failure("GET %s -> HTTP %d, expected a redirect to the client. Body: %s"
                          % (url, status, text[:300]))
        nxt = urllib.parse.urljoin(url, h["Location"])
        if nxt.startswith(origin + "/login.html") or "callback_url=" in nxt:
            raise Failure("Glewlwyd sent the browser back to the login page after Continue "
                          "(session/scope not accepted): " + nxt)
        if not nxt.startswith(origin + "/"):
            return nxt
        url = nxt
    raise Failure("too many redirects inside Glewlwyd")


def main():
    ap = argparse.ArgumentParser(description="Sign in to the local Glewlwyd over plain HTTP.")
    ap.add_argument("authorization_url")
    ap.add_argument("-u", "--username", default=os.environ.get("GLEWLWYD_USERNAME", "alice"))
    ap.add_argument("-p", "--password", default=os.environ.get("GLEWLWYD_PASSWORD", "alice-password"))
    ap.add_argument("--print-only", action="store_true",
                    help="print the final redirect URL instead of requesting it")
    ap.add_argument("--no-consent", action="store_true",
                    help="fail instead of granting on the consent screen")
    ap.add_argument("--timeout", type=float, default=15.0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    if not is_http(args.authorization_url):
        print("browser_signin: ERROR: not an http(s) URL: " + args.authorization_url, file=sys.stderr)
        return 2
    b = Browser(args.timeout, args.verbose)
    auth_url = args.authorization_url
    try:
        # A system-browser sign-in hands the browser a first hop on the app's loopback listener
        # (http://127.0.0.1:<port>/<32 hex digits>), which redirects to the authorization URL.
        parts = urllib.parse.urlsplit(auth_url)
        if re.fullmatch(r"/[0-9a-f]{32}", parts.path) and not parts.query:
            status, h, _ = b.request("GET", auth_url)
            if status != 302 or not h.get("Location"):
                raise Failure("the app's first hop answered HTTP %d, not a redirect" % status)
            auth_url = urllib.parse.urljoin(auth_url, h["Location"])
        final = sign_in(auth_url, args.username, args.password,
                        not args.no_consent, b)
    except Failure as e:
        print("browser_signin: ERROR: %s" % e, file=sys.stderr)
        return 1

    err = check_oauth_error(final)
    if err:
        print("browser_signin: ERROR: provider redirected with error %s" % err, file=sys.stderr)
        print("REDIRECT_URL=" + final)
        return 3
    if args.print_only or not is_http(final):
        if not is_http(final):
            print("browser_signin: redirect URI is not http(s), not fetching it", file=sys.stderr)
        print("REDIRECT_URL=" + final)
        return 0

    # 7. deliver the code to our loopback listener (no cookies/redirect-following needed)
    try:
        status, _, text = b.request("GET", final)
    except Failure as e:
        print("browser_signin: ERROR: delivering the code to the redirect URI failed: %s" % e,
              file=sys.stderr)
        print("REDIRECT_URL=" + final)
        return 1
    print("browser_signin: redirect URI answered HTTP %d: %s" % (status, text[:200].strip()),
          file=sys.stderr)
    print("REDIRECT_URL=" + final)
    return 0 if status < 400 else 1


if __name__ == "__main__":
    sys.exit(main())
