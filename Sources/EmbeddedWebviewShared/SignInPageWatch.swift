#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// Watches the sign-in page for what the view cannot do, from inside the page: a user script,
/// injected at document start in every frame, reports to the library through a script message
/// channel when the page calls WebAuthn (`navigator.credentials.get/create` with `publicKey`)
/// or shows text of an ``EmbeddedAgentRefusal``. Nothing is decided here: the session hands over.
///
/// WebKitGTK has no WebAuthn. When `advertisesWebAuthn`, the script defines
/// `window.PublicKeyCredential` so that sites offer their passkey or security-key step (the
/// call then moves the sign-in to the browser), answering `false` to
/// `isUserVerifyingPlatformAuthenticatorAvailable` and `isConditionalMediationAvailable`: the
/// view has no platform authenticator, and a page must not be handed over by autofill it starts
/// on its own (a conditional request never settles, as in a browser where no passkey is picked).
/// With ``WebAuthnBridge`` on (`answersWebAuthnInTopFrame`), the top frame is left to it: only
/// frames below it are intercepted. The script and the channel are added to the view's content manager for the session and
/// removed at ``stop()``, so a caller's view is left as it was.
///
/// In the library's window (`focusesFirstField`) the script also puts the keyboard focus in the
/// page's first field once the page has loaded, when the page focused nothing itself: no
/// `autofocus` and no script's `focus()` by then (a person who types at once types there; a
/// screen reader starts there).
@MainActor
final class SignInPageWatch {
    /// The channel's name (`window.webkit.messageHandlers.<name>`).
    static let channel = "webviewHostSignIn"

    /// What the page did.
    enum Finding: Equatable {
        /// `navigator.credentials.get` or `.create` with `publicKey` (`operation` is "get" or "create").
        case webAuthn(operation: String)
        /// The page's text matched the refusal rule at this index.
        case refusal(index: Int)
    }

    private let view: WebKitDifferences.WebView
    /// The view's content manager, kept until ``stop()`` has taken the script and channel out.
    private let manager: GObjectRef<WebKitDifferences.ContentManager>
    private var script: OpaquePointer?
    private let connections = SignalConnections()
    private var registered = false

    /// Starts watching the pages `view` loads from now on; `found` is called on the main thread.
    init(
        view: WebKitDifferences.WebView, advertisesWebAuthn: Bool, answersWebAuthnInTopFrame: Bool = false,
        refusals: [EmbeddedAgentRefusal],
        focusesFirstField: Bool = false, found: @escaping @MainActor (Finding) -> Void
    ) {
        self.view = view
        manager = GObjectRef(retaining: WebKitDifferences.contentManager(of: view))
        registered = WebKitDifferences.registerMessages(manager.pointer, name: Self.channel)
        connections.connect(manager, "script-message-received::\(Self.channel)", .pointer { (argument: WebKitDifferences.ScriptMessage?) in
            guard let text = WebKitDifferences.messageText(argument), let finding = Self.finding(text) else { return }
            found(finding)
        })
        let source = Self.source(
            advertisesWebAuthn: advertisesWebAuthn, answersWebAuthnInTopFrame: answersWebAuthnInTopFrame, refusals: refusals,
            focusesFirstField: focusesFirstField)
        let script = webkit_user_script_new(
            source, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)!
        webkit_user_content_manager_add_script(manager.pointer, script)
        self.script = script
    }

    /// Refuses the WebAuthn requests the page is waiting on (`NotAllowedError`), so it can offer
    /// another way to sign in: the person chose to stay in the view.
    func refusePendingRequests() {
        webkit_web_view_evaluate_javascript(
            view, "window.__webviewHostRefuseCredentials && window.__webviewHostRefuseCredentials()", -1,
            nil, nil, nil, nil, nil)
    }

    /// Removes the script and the channel from the view's content manager. Calling it again does nothing.
    func stop() {
        guard let script else { return }
        self.script = nil
        connections.disconnectAll()
        webkit_user_content_manager_remove_script(manager.pointer, script)
        webkit_user_script_unref(script)
        if registered { WebKitDifferences.unregisterMessages(manager.pointer, name: Self.channel) }
    }

    /// Reads a message the script sent: `webauthn:get`, `webauthn:create`, `refusal:<index>`.
    static func finding(_ text: String) -> Finding? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "webauthn" where parts[1] == "get" || parts[1] == "create": return .webAuthn(operation: parts[1])
        case "refusal": return Int(parts[1]).map { .refusal(index: $0) }
        default: return nil
        }
    }

    /// `text` as a JavaScript string literal: ASCII letters and digits as they are, every other
    /// UTF-16 unit as `\uXXXX`, so no text can end the literal or the script. (Not `JSONEncoder`
    /// or `JSONSerialization`: their code is the largest part of what a sign-in would load of
    /// Foundation for this, which the benchmark's memory goal counts.)
    static func javaScriptString(_ text: String) -> String {
        var literal: [UInt8] = [UInt8(ascii: "\"")]
        for unit in text.utf16 {
            switch unit {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: literal.append(UInt8(unit))
            default:
                literal += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
                for shift in stride(from: 12, through: 0, by: -4) {
                    let digit = UInt8((unit >> UInt16(shift)) & 0xF)
                    literal.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
                }
            }
        }
        literal.append(UInt8(ascii: "\""))
        return String(decoding: literal, as: UTF8.self)
    }

    /// The user script: WebAuthn calls and refusal text reported on the channel; the first field
    /// focused when `focusesFirstField` and the page focused nothing.
    static func source(
        advertisesWebAuthn: Bool, answersWebAuthnInTopFrame: Bool = false, refusals: [EmbeddedAgentRefusal], focusesFirstField: Bool = false
    ) -> String {
        let needles = refusals.map(\.pageTextContains)
        let needlesJSON = "[" + needles.map { "[" + $0.map(javaScriptString).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        return """
            (function () {
              "use strict";
              var channel = "\(channel)";
              function post(message) {
                try { window.webkit.messageHandlers[channel].postMessage(message); } catch (e) {}
              }
              var waiting = [];
              Object.defineProperty(window, "__webviewHostRefuseCredentials", { value: function () {
                waiting.splice(0).forEach(function (reject) {
                  reject(new DOMException("The request is not allowed in this window.", "NotAllowedError"));
                });
              } });
              function intercept(operation, original) {
                return function (options) {
                  if (options && options.publicKey) {
                    if (options.mediation === "conditional") { return new Promise(function () {}); }
                    post("webauthn:" + operation);
                    return new Promise(function (resolve, reject) { waiting.push(reject); });
                  }
                  if (original) { return original.apply(this, arguments); }
                  return Promise.reject(new DOMException("Not supported here.", "NotSupportedError"));
                };
              }
              var container = window.CredentialsContainer && window.CredentialsContainer.prototype;
              if (\(answersWebAuthnInTopFrame ? "true" : "false") && window.top === window) {
                // The top frame's API is the library's (WebAuthnBridge): nothing to intercept.
              } else if (container) {
                container.get = intercept("get", container.get);
                container.create = intercept("create", container.create);
              } else {
                var credentials = { get: intercept("get", null), create: intercept("create", null),
                  store: function () { return Promise.reject(new DOMException("Not supported here.", "NotSupportedError")); },
                  preventSilentAccess: function () { return Promise.resolve(); } };
                try { Object.defineProperty(Navigator.prototype, "credentials", { get: function () { return credentials; }, configurable: true }); } catch (e) {}
              }
              if (\(answersWebAuthnInTopFrame ? "true" : "false") && window.top === window) {
                // Defined by the library's own page script.
              } else if (\(advertisesWebAuthn ? "true" : "false")) {
                var no = function () { return Promise.resolve(false); };
                if (typeof window.PublicKeyCredential !== "function") {
                  var PublicKeyCredential = function PublicKeyCredential() { throw new TypeError("Illegal constructor"); };
                  Object.defineProperty(window, "PublicKeyCredential", { value: PublicKeyCredential, configurable: true, writable: true });
                }
                window.PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable = no;
                window.PublicKeyCredential.isConditionalMediationAvailable = no;
              } else if (typeof window.PublicKeyCredential === "function") {
                try { delete window.PublicKeyCredential; } catch (e) {}
              }
              var needles = \(needlesJSON);
              if (window.top === window && needles.length) {
                var reported = false;
                var check = function () {
                  if (reported || !document.documentElement) { return; }
                  var text = (document.title || "") + "\\n" + (document.documentElement.innerText || document.documentElement.textContent || "");
                  for (var i = 0; i < needles.length; i++) {
                    for (var j = 0; j < needles[i].length; j++) {
                      if (text.indexOf(needles[i][j]) !== -1) { reported = true; post("refusal:" + i); return; }
                    }
                  }
                };
                document.addEventListener("DOMContentLoaded", check);
                window.addEventListener("load", check);
              }
              if (\(focusesFirstField ? "true" : "false") && window.top === window) {
                // After load, so the page's own autofocus (run at its first rendering) and its
                // scripts go first; then only when nothing in the page has the focus.
                window.addEventListener("load", function () {
                  requestAnimationFrame(function () { setTimeout(function () {
                    var active = document.activeElement;
                    if ((active && active !== document.body && active !== document.documentElement) || document.querySelector("[autofocus]")) { return; }
                    var fields = document.querySelectorAll("input, textarea, select");
                    for (var i = 0; i < fields.length; i++) {
                      var field = fields[i], type = (field.type || "").toLowerCase();
                      if (["hidden", "button", "submit", "reset", "image", "checkbox", "radio", "file", "range", "color"].indexOf(type) !== -1) { continue; }
                      if (field.disabled || field.readOnly || !field.getClientRects().length) { continue; }
                      field.focus({ preventScroll: true });
                      return;
                    }
                  }, 0); });
                });
              }
            })();
            """
    }
}
