#!/usr/bin/env python3
"""Signs a person in on Glewlwyd's login page in a real, running Chromium, as the person would.

    chromium-autopilot.py PROFILE_DIR USERNAME PASSWORD [--host-port 127.0.0.1:PORT] [--deadline S]

Waits for the Chromium that uses PROFILE_DIR (its --user-data-dir) to write DevToolsActivePort
(Chromium started with --remote-debugging-port=0), attaches to every page over the DevTools
protocol (one WebSocket to the browser, `websocket-client`), and acts on each page only through
input events, never through the page's own functions:
  * the login form (`#username`, `#password`, `#loginbut` visible): clicks into each field,
    selects what is there (Ctrl+A), types the text key by key, and clicks the login button;
  * the consent screen ("Grant access"): clicks every unticked scope box, then the button;
  * the "Continue" button: clicks it;
  * the end-session page (`prompt=end_session` in its URL, a "Logout" button): clicks Logout.
Only pages on --host-port are touched (default: any). Reading the page (where a button is,
whether it is visible) goes through Runtime.evaluate; acting never does.
Each action is one JSON line on stdout ({"step": "login", "url": ...}); it runs until killed or
until the deadline passes (default 300 s), and never exits on its own before that.
"""
import json
import os
import sys
import time
import urllib.parse

import websocket  # websocket-client (Debian: python3-websocket)

FIND = r"""
(function () {
  function visible(el) {
    if (!el || el.disabled) return false;
    var r = el.getBoundingClientRect();
    return el.offsetParent !== null && r.width > 0 && r.height > 0;
  }
  function box(el) {
    el.scrollIntoView({block: "center", inline: "center"});
    var r = el.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2};
  }
  function button(text) {
    return Array.prototype.find.call(document.querySelectorAll("button, a, input[type=submit]"),
      function (b) { return visible(b) && (b.textContent || b.value || "").trim() === text; });
  }
  var user = document.querySelector("#username"), pass = document.querySelector("#password"),
      ok = document.querySelector("#loginbut");
  if (visible(user) && visible(pass) && visible(ok))
    return {screen: "login", user: box(user), password: box(pass), submit: box(ok),
            userValue: user.value, passwordLength: pass.value.length};
  var grant = button("Grant access");
  if (grant) {
    var boxes = Array.prototype.filter.call(
      document.querySelectorAll("input[type=checkbox]:not(:checked):not(:disabled)"), visible);
    if (boxes.length > 0) return {screen: "consent-scope", box: box(boxes[0])};
    return {screen: "consent", submit: box(grant)};
  }
  // Only the end-session page: once someone is signed in, the login page has a "Logout" in its menu.
  // And only once it names the client that asks: the name comes with the page's session call,
  // and until that answered its Logout throws and ends nothing.
  var asking = /client\s+(\S.*?)\s+wishes/i.exec(document.body.innerText);
  var logout = location.href.indexOf("prompt=end_session") !== -1 && asking &&
      asking[1].indexOf("{{") === -1 && asking[1] !== "undefined" && button("Logout");
  if (logout) return {screen: "logout", submit: box(logout)};
  var next = button("Continue");
  if (next) return {screen: "continue", submit: box(next)};
  return {screen: "other"};
})()
"""


class Browser:
    """One WebSocket to the browser target; commands to pages go with their flat session id."""

    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
        raise TimeoutError(method)

    def drain(self):
        """Events that arrived without a command waiting for them."""
        self.socket.settimeout(0.05)
        try:
            while True:
                self.events.append(json.loads(self.socket.recv()))
        except (websocket.WebSocketTimeoutException, TimeoutError):
            pass
        events, self.events = self.events, []
        return events


def say(step, **fields):
    fields["step"] = step
    print(json.dumps(fields), flush=True)


class Page:
    def __init__(self, browser, session, url):
        self.browser, self.session, self.url = browser, session, url
        self.last_action = 0.0
        self.logged_out = set()  # the end-session pages whose Logout was clicked

    def evaluate(self, expression):
        result = self.browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                                   session=self.session)
        return result.get("result", {}).get("value")

    def click(self, point):
        for kind, buttons in (("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)):
            self.browser.call("Input.dispatchMouseEvent", {
                "type": kind, "x": point["x"], "y": point["y"], "button": "left" if kind != "mouseMoved" else "none",
                "buttons": buttons, "clickCount": 1 if kind != "mouseMoved" else 0}, session=self.session)

    def key(self, key, code, keycode, modifiers=0, text=None):
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": keycode, "modifiers": modifiers}
        if text:
            down["text"] = text
        self.browser.call("Input.dispatchKeyEvent", down, session=self.session)
        self.browser.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                                     "windowsVirtualKeyCode": keycode, "modifiers": modifiers},
                          session=self.session)

    def type_into(self, point, text):
        """Clicks into a field, selects what it holds, and types `text` over it key by key."""
        self.click(point)
        self.key("a", "KeyA", 65, modifiers=2)  # Ctrl+A
        self.key("Backspace", "Backspace", 8)
        for character in text:
            self.key(character, "", ord(character.upper()) if character.isalnum() else 0, text=character)

    def act(self):
        """One step on whatever screen the page shows; returns the screen's name."""
        if time.monotonic() - self.last_action < 1.0:
            return None  # the page is still reacting to the last step
        state = self.evaluate(FIND)
        if not isinstance(state, dict):
            return None
        screen = state.get("screen")
        if screen == "login":
            self.type_into(state["user"], USERNAME)
            self.type_into(state["password"], PASSWORD)
            typed = self.evaluate("[document.querySelector('#username').value,"
                                  " document.querySelector('#password').value.length]")
            self.click(state["submit"])
            say("login", url=self.url, typedUsername=typed[0] if typed else None,
                typedPasswordLength=typed[1] if typed else None)
        elif screen == "consent-scope":
            self.click(state["box"])
            say("consent-scope", url=self.url)
        elif screen == "logout":
            # Once per page, as a person does: a second click while the first one's calls are on
            # their way fails them.
            if self.url in self.logged_out:
                return None
            self.logged_out.add(self.url)
            self.click(state["submit"])
            say(screen, url=self.url)
        elif screen in ("consent", "continue"):
            self.click(state["submit"])
            say(screen, url=self.url)
        else:
            return screen
        self.last_action = time.monotonic()
        return screen


def main():
    global USERNAME, PASSWORD
    arguments = sys.argv[1:]
    options = {}
    while len(arguments) > 3 and arguments[-2].startswith("--"):
        options[arguments[-2]] = arguments[-1]
        arguments = arguments[:-2]
    profile, USERNAME, PASSWORD = arguments
    host_port = options.get("--host-port")
    deadline = time.monotonic() + float(options.get("--deadline", "300"))

    active = os.path.join(profile, "DevToolsActivePort")
    while time.monotonic() < deadline:
        try:
            with open(active) as f:
                lines = f.read().split("\n")
            if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                break
        except OSError:
            pass
        time.sleep(0.1)
    else:
        say("no-browser")
        sys.exit(1)
    port, path = int(lines[0]), lines[1].strip()
    browser = Browser("ws://127.0.0.1:%d%s" % (port, path))
    say("attached", port=port)
    browser.call("Target.setDiscoverTargets", {"discover": True})
    pages = {}  # target id -> Page
    urls = {}

    def attach(info):
        if info.get("type") != "page" or info["targetId"] in pages:
            return
        session = browser.call("Target.attachToTarget", {"targetId": info["targetId"], "flatten": True})["sessionId"]
        pages[info["targetId"]] = Page(browser, session, info.get("url", ""))

    for info in browser.call("Target.getTargets").get("targetInfos", []):
        attach(info)
    while time.monotonic() < deadline:
        for event in browser.drain():
            method, params = event.get("method"), event.get("params", {})
            if method in ("Target.targetCreated", "Target.targetInfoChanged"):
                info = params["targetInfo"]
                attach(info)
                if info["targetId"] in pages and urls.get(info["targetId"]) != info.get("url"):
                    urls[info["targetId"]] = info.get("url")
                    pages[info["targetId"]].url = info.get("url")
                    say("page", url=info.get("url"))
            elif method == "Target.targetDestroyed":
                pages.pop(params["targetId"], None)
        for page in list(pages.values()):
            location = urllib.parse.urlsplit(page.url)
            if location.scheme not in ("http", "https"):
                continue
            if host_port and location.netloc != host_port:
                continue
            try:
                page.act()
            except (RuntimeError, TimeoutError) as error:
                # A page that navigated away mid-step: its next state decides.
                say("retry", url=page.url, error=str(error))
        time.sleep(0.2)
    sys.exit(0)


USERNAME = PASSWORD = ""

if __name__ == "__main__":
    main()
