#!/usr/bin/env python3
"""The person's side of a device code at Glewlwyd, as on their phone: signs in at Glewlwyd's
REST API and continues on its device page with the code (what Glewlwyd's own tests do).

    approve_device.py BASE_URL USERNAME PASSWORD USER_CODE

Prints LOCATION=<where Glewlwyd's device page sends the browser> (prompt=deviceComplete when
the code was accepted), or LOCATION=none.
"""
import http.cookiejar
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

base, user, password, code = sys.argv[1:5]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
login = urllib.request.Request(base + "/api/auth/", data=json.dumps({"username": user, "password": password}).encode(),
                               method="POST", headers={"Content-Type": "application/json"})
opener.open(login, timeout=10).read()
try:
    opener.open(base + "/api/oidc/device?" + urllib.parse.urlencode({"code": code}) + "&g_continue", timeout=10)
    print("LOCATION=none")
except urllib.error.HTTPError as error:
    print("LOCATION=" + (error.headers.get("Location") or ""))
