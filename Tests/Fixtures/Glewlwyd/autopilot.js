// Signs in on Glewlwyd's login application as a person would. Autopilot.swift (Tests/Scenarios/SignInScenarios)
// and the GObject layer's tests fill in its three placeholders (the words in capitals between
// double underscores): the username and the passwords as JSON, and what to do on the end-session page.
(function () {
  if (window.__wvhAutopilot) return;
  window.__wvhAutopilot = true;
  var passwords = __PASSWORDS__;
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
      setValue(user, __USERNAME__); setValue(pass, passwords[attempt]); attempt += 1;
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
    if (logout) { __ON_LOGOUT__ }
    var next = button("Continue");
    if (next) { document.title = "wvh:continue"; next.click(); last = Date.now(); }
  }, 250);
})();
