// Scenarios for the hand-over from the embedded view to the person's browser (issue 17): a page
// that asks for a passkey from its own timer, a provider that refuses embedded agents, the
// person's button, the app's call; under the three policies, in the library's window or a
// caller's view. The browser is whatever the scenario's desktop has as its default (the tests
// give it real headless Chromium); the identity provider is a TestServer on 127.0.0.1.
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let handover: Scenario = { arguments in
        try await handOverScenario(mode: arguments[0], trigger: arguments[1], policy: arguments[2])
    }
}

/// The policies by name, as the tests pass them.
func handOverPolicy(_ name: String) -> SystemBrowserHandOverPolicy {
    switch name {
    case "never": .never
    case "askFirst", "askFirst-decline": .askFirst
    default: .automatic
    }
}

/// A page that feature-detects WebAuthn as sites do, tells the server what it saw, and, from its
/// own timer, asks for a passkey (`get`) or to register one (`create`) when the browser seems to
/// have WebAuthn; otherwise, or when the request is refused, it goes on with a password: its
/// timer sends the view to the redirect with `fallbackCode`.
func passkeyPage(operation: String, always: Bool, fallback: String) -> String {
    let options = operation == "create"
        ? "{publicKey: {challenge: new Uint8Array(32), rp: {name: 'Test IdP'}, user: {id: new Uint8Array(16), name: 'alice', displayName: 'Alice'}, pubKeyCredParams: [{type: 'public-key', alg: -7}]}}"
        : "{publicKey: {challenge: new Uint8Array(32), timeout: 60000, userVerification: 'preferred'}}"
    return Pages.scripted(
        "Sign in with a passkey",
        """
        const report = (what) => fetch('/report?' + what).catch(() => {});
        const hasPKC = typeof window.PublicKeyCredential === 'function';
        const usePassword = () => setTimeout(() => { window.location.href = '\(fallback)'; }, 300);
        const detect = hasPKC && PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable
            ? PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable() : Promise.resolve(false);
        const conditional = hasPKC && PublicKeyCredential.isConditionalMediationAvailable
            ? PublicKeyCredential.isConditionalMediationAvailable() : Promise.resolve(false);
        Promise.all([detect, conditional]).then(([uvpa, cond]) => {
          report('pkc=' + hasPKC + '&uvpa=' + uvpa + '&conditional=' + cond);
          if (!hasPKC && !\(always)) { report('password=1'); usePassword(); return; }
          setTimeout(() => {
            navigator.credentials.\(operation)(\(options))
              .then(() => report('webauthn=resolved'))
              .catch((error) => { report('webauthn=' + error.name); usePassword(); });
          }, 250);
        });
        """)
}

@MainActor
func handOverScenario(mode: String, trigger: String, policy policyName: String) async throws -> ScenarioReport {
    WebviewProviderRegistry.register(SystemBrowserProvider())
    let surface = Surface(mode)
    let callback = try callbackListener()
    let idp = try TestServer()
    let viewRedirect = callback.url("/callback")
    let policy = handOverPolicy(policyName)
    var parameters = surface.parameters()
    parameters.systemBrowserHandOver = policy
    parameters.systemBrowserRedirectURI = URL(string: "http://127.0.0.1/browser-callback")!
    parameters.timeout = .seconds(90)
    var facts = ScenarioReport()
    facts[.mode] = mode
    facts[.trigger] = trigger
    facts[.policy] = policyName
    let fallback = "\(viewRedirect)?code=from-view&state=s-1"
    idp.route("/report") { _ in .html("ok") }
    idp.route("/signin/oauth/error") { _ in
        Response403.page("Access blocked: this app's request is invalid. Error 403: disallowed_useragent")
    }
    idp.route("/blocked") { _ in
        // Quotes, a backslash, a dash and an emoji (a UTF-16 surrogate pair): the rule's text
        // reaches the page's script intact, whatever it holds.
        Response403.page(#"Sign-in from "embedded" browsers isn't supported \ by Example Corp &#x2014; use your web browser &#x1F600;."#)
    }
    idp.route("/refused-text") { _ in
        .html(Pages.plain("This browser or app may not be secure", body: "<p>Error 403: disallowed_useragent</p>"))
    }
    idp.route("/authorize") { request in
        let query = URLComponents(string: "/?" + (request.query ?? ""))?.queryItems ?? []
        let redirect = query.first { $0.name == "redirect_uri" }?.value ?? ""
        let state = query.first { $0.name == "state" }?.value ?? ""
        guard redirect.hasPrefix(viewRedirect) else {
            // The browser's request: signed in at once (the person's browser session).
            return .redirect("\(redirect)?code=from-browser&state=\(state)")
        }
        switch trigger {
        case "webauthn-get", "webauthn-create":
            return .html(passkeyPage(operation: trigger == "webauthn-get" ? "get" : "create", always: false, fallback: fallback))
        case "webauthn-undetected":
            // A page that calls WebAuthn without feature detection.
            return .html(passkeyPage(operation: "get", always: true, fallback: fallback))
        case "refused-url":
            return .redirect(idp.url("/signin/oauth/error?authError=Cg9kaXNhbGxvd2VkX3VzZXJhZ2VudA&flowName=disallowed_useragent"))
        case "refused-text":
            return .redirect(idp.url("/refused-text"))
        case "custom-rule":
            return .redirect(idp.url("/blocked"))
        default:  // "button", "app": an ordinary sign-in page that waits for the person
            return .html(Pages.login(action: "/login", submitAfterMilliseconds: nil))
        }
    }
    if trigger == "custom-rule" {
        parameters.embeddedAgentRefusals.append(
            EmbeddedAgentRefusal(name: "Example Corp", pageTextContains: [#""embedded" browsers isn't supported \ by Example Corp \#u{2014} use your web browser \#u{1F600}"#]))
    }

    let session = WebAuthSession(redirectURI: URL(string: viewRedirect)!, parameters: parameters)
    let recorder = NotificationRecorder(session)
    var built: [String] = []
    let outcome = Task { @MainActor () -> Result<WebAuthResponse, WebAuthError> in
        do throws(WebAuthError) {
            return .success(try await session.authenticate { redirect in
                built.append(redirect.absoluteString)
                let state = "s-\(built.count)"
                return AuthorizationRequestURL(
                    URL(string: idp.url("/authorize?client_id=c&redirect_uri=\(encoded(redirect.absoluteString))&state=\(state)"))!,
                    state: state)
            })
        } catch {
            return .failure(error)
        }
    }
    // The person's and the app's triggers, once the page is in.
    if trigger == "button" || trigger == "app" {
        if await recorder.waitForFinish(path: "/authorize") {
            if trigger == "app" {
                facts[.appCallAccepted] = session.continueInSystemBrowser()
            } else if let view = recorder.webview?.address, let window = Toolkit.window(of: view),
                let button = Probes.findButton(labelled: "Continue in your _browser", in: window)
            {
                facts[.buttonVisible] = Probes.isVisible(button)
                if Probes.isVisible(button) { Toolkit.click(button) } else { session.cancel() }
            } else {
                facts[.buttonVisible] = false
                session.cancel()
            }
        }
    }
    // Ask first: the question appears over the sign-in; the person answers with a key press.
    if policy == .askFirst, trigger != "button", trigger != "app" {
        let question = await Probes.waitForToplevel(titled: "Continue in your browser?", within: Patience.event)
        facts[.questionShown] = question != nil
        if let question {
            facts[.questionButtons] = Probes.buttonLabels(in: question)
            facts[.questionDefault] = Probes.defaultButtonLabel(in: question) ?? ""
            Probes.clickButton(labelled: policyName == "askFirst-decline" ? "_Stay here" : "Continue in _browser", in: question)
        }
    }
    let result = await outcome.value
    await ScenarioHost.idle(.milliseconds(800))
    facts.merge(SessionRunFacts.make(result, recorder: recorder))
    facts[.built] = built
    facts[.viewCallbackHits] = callback.requests.count
    facts[.reports] = idp.requests(to: "/report").map { $0.query ?? "" }
    facts[.browserAuthorizeRequests] = idp.requests(to: "/authorize").filter { ($0.query ?? "").contains("browser-callback") }.count
    if let handOver = recorder.handOvers.first {
        facts[.handOverReason] = handOver.reason.name
        facts[.handOverDetail] = handOver.detail
    }
    if case .failure(let error) = result, let handOver = error.handOver {
        facts[.errorHandOverReason] = handOver.reason.name
    }
    facts[.visibleToplevelsAfter] = Probes.visibleToplevels()
    if surface.isCallerView {
        await surface.waitForRelease()
        facts[.handlersLeft] = surface.handlersLeft
    }
    return facts
}

/// A 403 page, as identity providers answer a refused user agent.
enum Response403 {
    static func page(_ text: String) -> TestServer.Response {
        var response = TestServer.Response.html(Pages.plain("Access blocked", body: "<p>\(text)</p>"))
        response.status = 403
        return response
    }
}
