// The relay between webauthn-page.js and the native side. Injected at document start into the top
// frame's isolated script world "webviewhost-webauthn": page scripts share the DOM with it but
// cannot see or change its globals, so the origin it reports is the frame's own, never the page's
// word, and its message handler is out of the page's reach.
//
// Page world -> here: a "webviewhost-webauthn-request" CustomEvent on document whose detail is a
// JSON string {id, kind: "create"|"get"|"abort", options}. Here -> native: a JSON string
// {id, kind, options, origin, userActivation, stickyActivation} posted to webviewhostWebAuthn; its promise brings the
// reply (JSON text without the id), sent back as a "webviewhost-webauthn-response" CustomEvent on
// document with the id added. The reply to an abort is not sent back.
(function () {
  "use strict";
  if (window.top !== window) { return; }
  const handlers = window.webkit && window.webkit.messageHandlers;
  const handler = handlers && handlers.webviewhostWebAuthn;
  if (!handler) { return; }
  const KINDS = { __proto__: null, create: true, get: true, abort: true };

  function respond(id, answer) {
    answer.id = id;
    document.dispatchEvent(new CustomEvent("webviewhost-webauthn-response", { detail: JSON.stringify(answer) }));
  }
  const failure = (id, message) => respond(id, { ok: false, error: { name: "UnknownError", message: String(message) } });

  document.addEventListener("webviewhost-webauthn-request", (event) => {
    // Only a string detail is taken: nothing of the page runs while it is read, and the page cannot
    // change it afterwards. (WebKit 2.50 hands an object detail of the page world to this world as
    // a structured-clone copy, reading the page's getters to make it: not used.)
    const detail = event.detail;
    if (typeof detail !== "string") { return; }
    let request;
    try { request = JSON.parse(detail); } catch (e) { return; }
    if (request === null || typeof request !== "object") { return; }
    const { id, kind, options } = request;
    if (typeof id !== "string" || id.length === 0 || id.length > 256 || !KINDS[kind]) { return; }
    if (kind !== "abort" && (options === null || typeof options !== "object" || Array.isArray(options))) { return; }
    // Read now, while the page's call is on the stack: the activation is the page's current one.
    // Sticky too: whether the person interacted with the page at all (a page that waits for its
    // server between the click and `create` has lost the transient activation by then).
    const activation = navigator.userActivation ? navigator.userActivation.isActive : null;
    const sticky = navigator.userActivation ? navigator.userActivation.hasBeenActive : null;
    const message = JSON.stringify(kind === "abort" ? { id, kind, origin: location.origin, userActivation: activation, stickyActivation: sticky }
      : { id, kind, options, origin: location.origin, userActivation: activation, stickyActivation: sticky });
    let reply;
    try { reply = handler.postMessage(message); } catch (e) { if (kind !== "abort") { failure(id, e && e.message); } return; }
    if (kind === "abort") { return; }
    Promise.resolve(reply).then((text) => {
      let answer;
      try { answer = JSON.parse(text); } catch (e) { answer = null; }
      if (answer === null || typeof answer !== "object" || Array.isArray(answer)) { failure(id, "The native side gave no answer."); return; }
      respond(id, answer);
    }, (error) => failure(id, error && error.message !== undefined ? error.message : error));
  }, true);
})();
