// Test helpers for the harness pages (not shipped). Captures what it uses, so a page may override
// builtins between its checks. Results go into <pre id="results"> as JSON, read by harness.js from
// another script world; <html data-done="1"> says they are complete.
"use strict";
const H = (() => {
  const stringify = JSON.stringify, parse = JSON.parse, results = [];
  const atob_ = atob, btoa_ = btoa, fromCharCode = String.fromCharCode;
  function b64u(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (let i = 0; i < bytes.length; i++) { binary += fromCharCode(bytes[i]); }
    return btoa_(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function fromB64u(text) {
    const binary = atob_(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    return bytes.buffer;
  }
  const utf8 = (text) => new TextEncoder().encode(text);
  const text = (buffer) => new TextDecoder().decode(buffer);
  const same = (a, b) => stringify(a) === stringify(b);
  function check(name, ok, info) {
    results.push({ name, ok: !!ok, info: info === undefined ? "" : typeof info === "string" ? info : stringify(info) });
  }
  // Awaits promise and checks it rejects with a DOMException (or TypeError) named name.
  async function rejects(name, promise, errorName, extra) {
    try {
      const value = await promise;
      check(name, false, "resolved: " + stringify(value));
    } catch (e) {
      const isType = errorName === "TypeError";
      const ok = e && e.name === errorName && (isType ? e instanceof TypeError : e instanceof DOMException) && (!extra || extra(e));
      check(name, ok, (e && e.name) + ": " + (e && e.message));
    }
  }
  function throws(name, f, errorName) {
    try { f(); check(name, false, "no exception"); } catch (e) { check(name, e && e.name === errorName, (e && e.name) + ": " + (e && e.message)); }
  }
  function finish() {
    document.getElementById("results").textContent = stringify(results);
    document.documentElement.dataset.done = "1";
  }
  window.addEventListener("error", (e) => check("no uncaught error", false, e.message));
  window.addEventListener("unhandledrejection", (e) => check("no unhandled rejection", false, String(e.reason)));
  // Options whose challenge tells the fake native what to do ("ok", "error:NAME", "hang", ...).
  function creation(command, extra) {
    return Object.assign({
      rp: { name: "Harness RP", id: location.hostname },
      user: { id: utf8("user-1234"), name: "alice@example.test", displayName: "Alice" },
      challenge: utf8(command),
      pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
      timeout: 60000,
    }, extra || {});
  }
  function request(command, extra) {
    return Object.assign({ challenge: utf8(command), rpId: location.hostname, timeout: 60000 }, extra || {});
  }
  async function run(tests) {
    for (const test of tests) {
      try { await test(); } catch (e) { check("test " + (test.name || "?") + " ran", false, e && (e.name + ": " + e.message)); }
    }
    finish();
  }
  return { b64u, fromB64u, utf8, text, same, check, rejects, throws, finish, creation, request, run, stringify, parse };
})();
