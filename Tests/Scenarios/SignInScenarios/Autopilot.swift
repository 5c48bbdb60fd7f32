/// Page JavaScript that signs in on Glewlwyd's login application as a person would: types the
/// user name and each password in turn into `#username` / `#password` and presses `#loginbut`,
/// ticks every scope and presses "Grant access" on the consent screen, then "Continue".
/// Each step is announced in `document.title` (`wvh:login-1`, `wvh:consent`, `wvh:continue`)
/// so the scenario can tell which screens were shown.
func autopilotScript(username: String, passwords: [String]) -> String {
    let list = passwords.map { "\"\($0)\"" }.joined(separator: ", ")
    return #"""
    (function () {
      if (window.__wvhAutopilot) return;
      window.__wvhAutopilot = true;
      var passwords = [\#(list)];
      var attempt = 0, last = 0;
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
        var next = button("Continue");
        if (next) { document.title = "wvh:continue"; next.click(); last = Date.now(); }
      }, 250);
    })();
    """#
}
