// Passkeys and security keys in the sign-in view (issue 42): a page of the test's own server
// calls the Web Authentication API as sites do, and the library answers with the security key the
// test named in WEBVIEWHOST_VIRTUAL_AUTHENTICATORS (the test kit's virtual authenticator, beneath
// libfido2). The page reports each result to its server and goes on to the redirect URI; the test
// has a relying party of its own (python3-fido2) check what the key made and signed.
//
// arguments: `<window|view> <variant> [screenshot file]`, the variants:
//   register      a click (a real key press: xdotool) registers a credential, then the page signs in with it
//   pin           the same, the site requiring user verification: the key's PIN is asked, a wrong one first
//   no-gesture    `create` from a timer: NotAllowedError
//   foreign-rp    `create` naming another site's rpId: SecurityError
//   abort         `get` aborted by the page while the key waits for a touch: AbortError
//   abort-at-pin  `get` aborted by the page while the library asks the key's PIN: AbortError, the question gone
//   frame         a cross-origin frame sees no API
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let webAuthn: Scenario = { arguments in
        let mode = arguments.first ?? "window"
        let variant = arguments.dropFirst().first ?? "register"
        let callback = try callbackListener()
        let idp = try TestServer()
        var reports: [String: String] = [:]
        let createChallenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let getChallenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        idp.route("/authorize") { _ in
            .html(WebAuthnPage.html(variant: variant, callback: callback.url("/callback"), createChallenge: createChallenge, getChallenge: getChallenge, frame: idp.url("/frame").replacingOccurrences(of: "127.0.0.1", with: "localhost")))
        }
        idp.route("/frame") { _ in .html(WebAuthnPage.frame) }
        // abort, abort-at-pin: the page aborts its call once this says "yes" (it asks every 100 ms),
        // which the scenario says once the person has been asked (a touch, the PIN): on a loaded
        // machine a fixed time could come before the question.
        let abortNow = RouteFlag()
        idp.route("/abort-now") { _ in .html(abortNow.value ? "yes" : "no") }
        idp.route("/report") { request in
            reports[request.query ?? "?"] = request.body  // the last report of a name
            return .html("ok")
        }
        let title = mode == "view" ? "WebAuthn app" : "Sign in to Test IdP"
        var parameters = windowParameters(parent: nil)
        if mode == "view" {
            let (window, view) = Probes.makeAppView(width: 700, height: 560)
            gtk_window_set_title(wvh_window(window), title)
            parameters = WebviewParameters(customWebview: WebviewHandle(address: view))
            parameters.securityKeysInCustomWebview = true
        }
        let mapped = MappedWindows()
        defer { mapped.stop() }
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        // The page says when its button has the focus; then a real key press (a user gesture).
        if ["register", "pin"].contains(variant) {
            _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(40))) { reports["ready"] != nil || run.result != nil }
            // The library's window focuses the page's button; in the app's window, a click on it.
            let gesture: InputEvent = mode == "view" ? .click(x: 300, y: 120) : .key("Return")
            facts[.webAuthnSteps] = ["ready: \(reports["ready"] != nil)", "gesture: \(await send(gesture, toWindowTitled: title))"]
        }
        if variant == "pin" {
            // A wrong PIN first, then the right one, each typed into the library's question; the
            // sign-in's `get` asks again (each ceremony asks, as browsers do).
            var typed: [String] = []
            let pinQuestion = "Enter your security key's PIN"
            for pin in ["9999", "1234", "1234"] {
                guard let dialog = await waitForPINQuestion(orUntil: { run.result != nil }) else { break }
                typed.append(Probes.labelTexts(in: dialog).joined(separator: " | "))
                if let shots = arguments.dropFirst(2).first, typed.count == 2 {
                    // For the README's picture only (never in a test run): the second question, with the tries left.
                    await ScenarioHost.idle(.milliseconds(800))
                    // On Wayland with input, Weston's window on its X server is the screen.
                    let screen = ProcessInfo.processInfo.environment["SCENARIO_INPUT_DISPLAY"].map { "env DISPLAY=\($0) " } ?? ""
                    _ = g_spawn_command_line_sync("\(screen)import -window root \(shots)", nil, nil, nil, nil)
                }
                let entries = Probes.descendants(of: dialog).filter {
                    g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer($0)), gtk_entry_get_type()) != 0
                }
                let slot = Probes.weakPointer(to: dialog)
                let answered = { slot.pointee.map { gtk_widget_get_visible(wvh_widget($0)) == 0 } ?? true }
                // Keys a dialog just mapped did not take are sent again, from an empty field.
                for _ in 1...5 {
                    guard !answered(), let entry = entries.first else { break }
                    Toolkit.setEntryText(entry, "")
                    gtk_widget_grab_focus(wvh_widget(entry))
                    _ = await send(.type(pin), toWindowTitled: pinQuestion)
                    guard await ScenarioHost.wait(upTo: Patience.scaled(.seconds(3)), until: { Toolkit.entryText(entry) == pin }) else { continue }
                    _ = await send(.key("Return"), toWindowTitled: pinQuestion)
                    if await ScenarioHost.wait(upTo: Patience.scaled(.seconds(6)), until: answered) { break }
                }
            }
            facts[.dialogTexts] = typed
        }
        if variant == "abort" || variant == "abort-at-pin" {
            let question = variant == "abort" ? "Touch your security key" : "Enter your security key's PIN"
            // The question's deadline runs from the page's call, not from the session's start: on a
            // loaded machine the page alone has taken 20 s to load.
            let called = await ScenarioHost.wait(upTo: Patience.event) { reports["calling"] != nil || run.result != nil }
            let asked = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) {
                run.result != nil || Toolkit.toplevels().contains { window in
                    gtk_widget_get_visible(wvh_widget(window)) != 0
                        && gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } == question
                }
            }
            facts[.webAuthnSteps] = ["called: \(called)", "asked \(question): \(asked && run.result == nil)"]
            abortNow.value = true
        }
        do {
            facts.merge(run.facts(try await run.outcome(within: Patience.scaled(.seconds(60))), prefix: ""))
        } catch {
            // What the page and the scenario got to, beside the hang.
            facts[.outcome] = "hung"
            facts[.errorMessage] = "\(error); reports: \(reports); steps: \(facts[.webAuthnSteps] ?? []); dialogs: \(facts[.dialogTexts] ?? []); windows shown: \(mapped.titles)"
        }
        if variant == "abort-at-pin" {
            // The question the page's abort made moot is gone.
            facts[.dialogTexts] = Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) != 0 }
                .compactMap { gtk_window_get_title(wvh_window($0)).map { String(cString: $0) } }
        }
        facts[.windowsMapped] = mapped.titles
        facts[.webAuthnReports] = String(decoding: try JSONSerialization.data(withJSONObject: reports), as: UTF8.self)
        facts[.webAuthnChallenges] = [Base64URL.encode(createChallenge), Base64URL.encode(getChallenge)]
        facts[.webAuthnOrigin] = idp.url("").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        return facts
    }

    /// The library's PIN question, once it shows.
    private static func waitForPINQuestion(orUntil done: () -> Bool) async -> UnsafeMutableRawPointer? {
        var found: UnsafeMutableRawPointer?
        _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) {
            if done() { return true }
            found = Toolkit.toplevels().first { window in
                gtk_widget_get_visible(wvh_widget(window)) != 0
                    && gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } == "Enter your security key's PIN"
            }
            return found != nil
        }
        return found
    }
}

/// The test's sign-in page: what sites do with the Web Authentication API.
enum WebAuthnPage {

    /// A cross-origin frame that reports what it sees and, when it has the API, calls it.
    static let frame = """
        <!doctype html><script>
        const report = value => fetch('http://127.0.0.1:' + location.port + '/report?frame', {method: 'POST', mode: 'no-cors', body: JSON.stringify(value)});
        const seen = {publicKeyCredential: typeof PublicKeyCredential, credentials: typeof navigator.credentials};
        report(seen);
        if (navigator.credentials) {
          navigator.credentials.get({publicKey: {challenge: new Uint8Array(32), rpId: 'localhost'}})
            .then(() => report(Object.assign(seen, {get: 'resolved'})), e => report(Object.assign(seen, {get: e.name})));
        }
        </script>
        """

    static func html(variant: String, callback: String, createChallenge: [UInt8], getChallenge: [UInt8], frame: String) -> String {
        """
        <!doctype html><html><head><title>Security key test</title><meta charset="utf-8"></head><body>
        <button id="go" style="width:100%;height:240px;font-size:32px">Use a security key</button>
        <script>
        "use strict";
        const variant = \(SignInJS.string(variant));
        const fromB64 = s => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), c => c.charCodeAt(0));
        const report = (name, value) => fetch('/report?' + name, {method: 'POST', body: JSON.stringify(value)});
        const finish = code => { location.href = \(SignInJS.string(callback)) + '?code=' + code + '&state=xyz'; };
        const fail = async e => { await report('error', {name: e.name, message: e.message}); finish('error-' + e.name); };
        const creation = (rpId) => ({publicKey: {
          challenge: fromB64(\(SignInJS.string(Base64URL.encode(createChallenge)))),
          rp: rpId ? {id: rpId, name: 'Test'} : {name: 'Test'},
          user: {id: new Uint8Array([1, 2, 3, 4]), name: 'alice', displayName: 'Alice'},
          pubKeyCredParams: [{type: 'public-key', alg: -7}],
          authenticatorSelection: {userVerification: variant === 'pin' ? 'required' : 'discouraged', residentKey: 'required'},
          attestation: 'direct', extensions: {credProps: true}}});
        async function register() {
          try {
            let started = performance.now();
            const created = await navigator.credentials.create(creation());
            const createMs = performance.now() - started;
            await report('created', {json: created.toJSON(), isCredential: created instanceof PublicKeyCredential, ms: createMs,
              algorithm: created.response.getPublicKeyAlgorithm(), transports: created.response.getTransports(),
              extensions: created.getClientExtensionResults()});
            started = performance.now();
            const got = await navigator.credentials.get({publicKey: {
              challenge: fromB64(\(SignInJS.string(Base64URL.encode(getChallenge)))), allowCredentials: [{type: 'public-key', id: created.rawId}],
              userVerification: variant === 'pin' ? 'required' : 'discouraged'}});
            const getMs = performance.now() - started;
            await report('got', {json: got.toJSON(), ms: getMs, userHandle: got.response.userHandle === null ? null : Array.from(new Uint8Array(got.response.userHandle))});
            finish('ok');
          } catch (e) { await fail(e); }
        }
        const button = document.getElementById('go');
        if (variant === 'register' || variant === 'pin') {
          button.addEventListener('click', register);
          button.focus();
          report('ready', {available: typeof PublicKeyCredential});
        } else if (variant === 'no-gesture') {
          setTimeout(() => navigator.credentials.create(creation()).then(() => finish('created'), fail), 200);
        } else if (variant === 'foreign-rp') {
          // No gesture needed to be refused for the rpId: the check comes first in browsers too.
          setTimeout(() => navigator.credentials.create(creation('example.com')).then(() => finish('created'), fail), 200);
        } else if (variant === 'abort' || variant === 'abort-at-pin') {
          // abort-at-pin: the site wants verification, so the library asks the key's PIN first.
          const controller = new AbortController();
          setTimeout(() => report('calling', {}).then(() => navigator.credentials.get({publicKey: {challenge: fromB64(\(SignInJS.string(Base64URL.encode(getChallenge)))),
            allowCredentials: [{type: 'public-key', id: new Uint8Array([9, 9, 9])}],
            userVerification: variant === 'abort-at-pin' ? 'required' : 'discouraged'}, signal: controller.signal}))
            .then(() => finish('got'), fail), 200);
          const poll = setInterval(async () => {
            const answer = await fetch('/abort-now').then(r => r.text(), () => 'no');
            if (answer === 'yes') { clearInterval(poll); controller.abort(); }
          }, 100);
        } else if (variant === 'frame') {
          const frame = document.createElement('iframe');
          frame.src = \(SignInJS.string(frame));
          document.body.appendChild(frame);
          setTimeout(() => finish('framed'), 3000);
        }
        </script></body></html>
        """
    }
}

/// JavaScript string literals for the page.
enum SignInJS {
    static func string(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
