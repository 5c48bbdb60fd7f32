#!/usr/bin/env python3
"""A stand-in for a person's browser and an identity provider that signs them in at once:
given an authorization URL, it requests its redirect_uri with code=browser and the URL's
state, over the loopback network, like a browser following the server's redirect.

    fake-browser.py [--stray] URL

--stray first requests another path on the same listener (it must be ignored).
"""
import sys
import urllib.error
import urllib.parse
import urllib.request

url = sys.argv[-1]
query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
redirect = query["redirect_uri"][0]
if "--stray" in sys.argv:
    try:
        urllib.request.urlopen(urllib.parse.urljoin(redirect, "/favicon.ico"), timeout=5)
    except urllib.error.HTTPError as error:
        assert error.code == 404, error.code
callback = redirect + "?" + urllib.parse.urlencode({"code": "browser", "state": query["state"][0]})
with urllib.request.urlopen(callback, timeout=5) as response:
    sys.stderr.write("fake-browser: %d %s\n" % (response.status, response.read(60)))
