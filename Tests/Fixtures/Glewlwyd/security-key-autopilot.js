// A person with a security key on Glewlwyd's login and profile applications (issue 42).
// SecurityKeyScenario.swift (Tests/Scenarios/SignInScenarios) fills in its placeholders (the words
// in capitals between double underscores): the mode, the username and the password as JSON.
//
// Every step is announced in `document.title` as `wvh:<step>`; a page whose text changed as
// `wvh:seen <path>: <its first words>` (what a failure's message shows).
//   mode "register": the password on the login page; at "Continue", her profile page instead;
//     there the "Security key" scheme, and its "New component" button gets the focus
//     (`wvh:register-ready`): the scenario presses Return (a real key press, the user gesture
//     `create` needs). Then `wvh:registered`, or `wvh:register-error`.
//   mode "sign-in": the password, then the scheme's "Login" button (`wvh:key`: the page calls
//     navigator.credentials.get), the consent screen if shown, "Continue". The page's own errors:
//     `wvh:key-error` (its "Authentication error"), `wvh:must-register` (no key registered).
(function () {
  if (window.__wvhSecurityKeyAutopilot) return;
  window.__wvhSecurityKeyAutopilot = true;
  var mode = __MODE__, username = __USERNAME__, password = __PASSWORD__;
  var typed = false, keyPressed = false, navigated = false, schemeOpened = false, ready = false, done = false;
  var last = 0, seen = "";
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
  // A navigation bar's link, shown or not (a narrow window collapses the bar behind its toggle).
  function navLink(text) {
    return Array.prototype.find.call(document.querySelectorAll("a.nav-link"),
      function (a) { return (a.textContent || "").trim() === text; });
  }
  function announce(step) { document.title = "wvh:" + step; }
  setInterval(function () {
    var body = document.body ? document.body.innerText.replace(/\s+/g, " ").trim() : "";
    var summary = location.pathname + ": " + body.slice(0, 160);
    if (summary !== seen) { seen = summary; announce("seen " + summary); }
    if (done) return;
    if (/You must register a webauthn device|You must register a scheme in your profile/.test(body)) { announce("must-register"); done = true; return; }
    if (mode === "sign-in" && keyPressed && /Authentication error/.test(body)) { announce("key-error"); done = true; return; }
    if (mode === "register" && /The new component has been registered/.test(body)) { announce("registered"); done = true; return; }
    if (mode === "register" && /Registration error|Error while registering component/.test(body)) { announce("register-error"); done = true; return; }
    if (Date.now() - last < 1200) return;
    var user = document.querySelector("#username"), pass = document.querySelector("#password"),
        ok = document.querySelector("#loginbut");
    if (!typed && visible(user) && visible(pass) && visible(ok)) {
      setValue(user, username); setValue(pass, password); typed = true;
      announce("password"); ok.click(); last = Date.now(); return;
    }
    var key = document.querySelector("#loginBut");
    if (mode === "sign-in" && !keyPressed && visible(key) && !key.disabled) {
      keyPressed = true; announce("key"); key.click(); last = Date.now(); return;
    }
    var grant = button("Grant access");
    if (grant) {
      var boxes = document.querySelectorAll("input[type=checkbox]:not(:checked):not(:disabled)");
      if (boxes.length > 0) {
        Array.prototype.forEach.call(boxes, function (b) { b.click(); });
        last = Date.now() - 800; return;
      }
      announce("consent"); grant.click(); last = Date.now(); return;
    }
    if (mode === "register" && location.pathname.indexOf("profile") !== -1) {
      if (!schemeOpened) {
        var scheme = navLink("Security key");
        if (scheme) { schemeOpened = true; announce("scheme"); scheme.click(); last = Date.now(); }
        return;
      }
      var create = button("New component");
      // Kept focused until the key press comes (a page update may move the focus).
      if (create && !create.disabled) {
        if (document.activeElement !== create) create.focus();
        if (!ready) { ready = true; announce("register-ready"); }
      }
      return;
    }
    var next = button("Continue");
    if (next && mode === "register" && !navigated) {
      navigated = true; announce("to-profile"); location.href = "/profile.html"; last = Date.now(); return;
    }
    if (next && mode === "sign-in") { announce("continue"); next.click(); last = Date.now(); }
  }, 250);
})();
