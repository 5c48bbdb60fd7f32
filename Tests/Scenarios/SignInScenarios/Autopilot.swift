/// Page JavaScript that signs in on Glewlwyd's login application as a person would: types the
/// user name and each password in turn into `#username` / `#password` and presses `#loginbut`,
/// ticks every scope and presses "Grant access" on the consent screen, then "Continue".
/// Each step is announced in `document.title` (`wvh:login-1`, `wvh:consent`, `wvh:continue`)
/// so the scenario can tell which screens were shown.
///
/// On Glewlwyd's end-session page (`prompt=end_session`, its "Logout" button) it clicks Logout (`wvh:logout`), or, with
/// `logout` `.wait`, only announces the page (`wvh:logout-page`) and leaves it, or with
/// `.forge(url)` goes to `url` instead (a post-logout redirect with a state of its own).
enum AutopilotLogout {
    case click
    case wait
    case forge(String)
}

func autopilotScript(username: String, passwords: [String], logout: AutopilotLogout = .click) -> String {
    let list = passwords.map { "\"\($0)\"" }.joined(separator: ", ")
    let onLogout: String
    switch logout {
    // Once, as a person does: a second click while the first one's calls are on their way fails them.
    case .click: onLogout = "if (loggedOut) return; loggedOut = true; document.title = 'wvh:logout'; logout.click(); last = Date.now(); return;"
    case .wait: onLogout = "document.title = 'wvh:logout-page'; return;"
    case .forge(let url): onLogout = "document.title = 'wvh:logout-forged'; location.href = '\(url)'; last = Date.now() + 60000; return;"
    }
    return #"""
    (function () {
      if (window.__wvhAutopilot) return;
      window.__wvhAutopilot = true;
      var passwords = [\#(list)];
      var attempt = 0, last = 0, loggedOut = false;
      function visible(el) { return el && el.offsetParent !== null; }
      function setValue(el, v) {
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(el, v);
        el.dispatchEvent(new Event("input", { bubbles: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
      }
      function button(text) {
        return Array.prototype.find.call(document.querySelectorAll("button, a, input[type=submit]"),
          function (b) { return visible(b) && (b.textContent || b.value || "").trim() === text; });
      }
      setInterval(function () {
        if (Date.now() - last < 1200) return;
        var user = document.querySelector("#username"), pass = document.querySelector("#password"),
            ok = document.querySelector("#loginbut");
        if (visible(user) && visible(pass) && visible(ok) && attempt < passwords.length) {
          setValue(user, "\#(username)"); setValue(pass, passwords[attempt]); attempt += 1;
          document.title = "wvh:login-" + attempt; ok.click(); last = Date.now(); return;
        }
        var grant = button("Grant access");
        if (grant) {
          var boxes = document.querySelectorAll("input[type=checkbox]:not(:checked):not(:disabled)");
          if (boxes.length > 0) {
            Array.prototype.forEach.call(boxes, function (b) { b.click(); });
            last = Date.now() - 800; return;
          }
          document.title = "wvh:consent"; grant.click(); last = Date.now(); return;
        }
        // Only on the end-session page (login.html?...prompt=end_session): the login page has a
        // "Logout" of its own in its menu once someone is signed in. And only once the page names
        // the client that asks ("The client WebviewHost tests wishes you to close ..."), as a
        // person reads it: the name comes with the page's session call, and until that answered
        // its Logout throws and ends nothing (seen under load).
        var asking = /client\s+(\S.*?)\s+wishes/i.exec(document.body.innerText);
        var logout = location.href.indexOf("prompt=end_session") !== -1 && asking &&
            asking[1].indexOf("{{") === -1 && asking[1] !== "undefined" && button("Logout");
        if (logout) { \#(onLogout) }
        var next = button("Continue");
        if (next) { document.title = "wvh:continue"; next.click(); last = Date.now(); }
      }, 250);
    })();
    """#
}
