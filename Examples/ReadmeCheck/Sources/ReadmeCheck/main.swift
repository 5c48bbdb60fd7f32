// Written from README.md and Docs.docc/ImplementingAProvider.md only: a plugin provider
// (a "kiosk" that never comes back by itself), the custom-scheme hand-over through the host,
// task cancellation, cancel from inside an observer, following a session on the main actor, and
// the external-scheme policy knob.
import Foundation
import WebviewHostGTK3
import BuiltInWebviewProvidersGTK3
import EmbeddedWebviewProviderGTK3
import SignIn
import ExternalWebviewProvider
import MicrosoftIdentityBroker

@MainActor
final class KioskSession: WebviewProviderSession {
    let request: WebAuthRequest
    let reporter: WebAuthSessionReporter
    var dismissed = 0
    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.request = request
        self.reporter = reporter
    }
    func prepare() async throws -> URL { request.redirectURI.url }
    func present(authorizationURL: URL) throws {
        reporter.didStartLoad(authorizationURL)
        reporter.didFinishLoad(authorizationURL)
    }
    func dismiss() { dismissed += 1 }
}

struct KioskBrowserProvider: WebviewProvider {
    let id: WebviewProviderID = "kiosk"
    let displayName = "Kiosk browser"
    let kind = WebviewProviderKind.other
    var requiresDisplay: Bool { false }
    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability { .available }
    @MainActor func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession { KioskSession(request: request, reporter: reporter) }
}

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok   \(what)" : "FAIL \(what)")
    if !condition { failures.append(what) }
}

WebviewProviderRegistry.register(KioskBrowserProvider())
let authorize = URL(string: "https://login.example/authorize")!
let custom = URL(string: "com.example.app:/oauth2redirect")!

// 1. A custom-scheme redirect handed to the host by the app.
do {
    let session = WebAuthSession(redirectURI: custom, parameters: .init(webviewType: .provider("kiosk")))
    _ = try await session.prepare()
    check(!WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=c&state=s"), "no hand-over before the page is shown")
    let running = Task { @MainActor in try await session.start(authorizationURL: authorize, expectedState: "s") }
    try await Task.sleep(for: .milliseconds(50))
    check(!WebAuthSession.handleOpenURL("com.example.other:/oauth2redirect?code=c&state=s"), "another scheme is not taken")
    check(WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=the-code&state=s"), "the redirect is taken")
    let response = try await running.value
    check(response.code == "the-code", "the code comes back")
    check(!WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=again&state=s"), "nothing after the outcome")
}

// 2. Cancelling the Swift task that awaits authenticate(): canceled, at once.
do {
    let session = WebAuthSession(redirectURI: custom, parameters: .init(webviewType: .provider("kiosk")))
    let signIn = Task { @MainActor in
        try await session.authenticate(expectedState: "s") { _ in authorize }
    }
    try await Task.sleep(for: .milliseconds(50))
    let started = ContinuousClock.now
    signIn.cancel()
    do {
        _ = try await signIn.value
        check(false, "task cancellation ends the session")
    } catch let error as WebAuthError {
        check(error.code == .canceled, "task cancellation is canceled (\(error.code))")
        check(ContinuousClock.now - started < .seconds(1), "at once")
    }
}

// 3. cancel() inside a handler: every observer sees didFinishLoad before didFail, and didFail is last.
do {
    let session = WebAuthSession(redirectURI: custom, parameters: .init(webviewType: .provider("kiosk")))
    _ = try await session.prepare()
    var seen: [String] = []
    var cancelReturnedAfter: [String]?
    let notified = NotificationCenter.default.addObserver(forName: .webAuthDidFinishLoad, object: session, queue: nil) { _ in
        MainActor.assumeIsolated { seen.append("notification:didFinishLoad") }
    }
    let first = session.observe { event in
        seen.append("first:\(event)")
        if case .didFinishLoad = event {
            session.cancel()
            cancelReturnedAfter = seen
        }
    }
    let second = WebAuthSession.observeAll { observed, event in
        if observed === session { seen.append("second:\(event)") }
    }
    do {
        _ = try await session.start(authorizationURL: authorize, expectedState: "s")
        check(false, "cancel from a handler ends the session")
    } catch {
        check(error.code == .canceled, "cancel from a handler is canceled")
    }
    let names = seen.map { String($0.prefix { $0 != "(" }) }
    check(names == ["first:didStartLoad", "second:didStartLoad", "notification:didFinishLoad", "first:didFinishLoad",
                    "second:didFinishLoad", "first:didFail", "second:didFail"],
          "didFinishLoad reached every observer before didFail, didFail last: \(names)")
    check(cancelReturnedAfter?.contains { $0.contains("didFail") } == false, "cancel() does not deliver didFail inside the handler")
    check(!first.isValid && second.isValid, "a session's observation ends with it; observeAll goes on")
    second.invalidate()
    NotificationCenter.default.removeObserver(notified)
}

// 5. README "Your own WebKitWebView": the observation snippets as written, run on a kiosk session.
do {
    let spinner = Spinner()
    let statusLabel = StatusLabel()
    var shown: [String] = []
    let session = WebAuthSession(redirectURI: custom, parameters: .init(webviewType: .provider("kiosk")))
    let observations = followSession(session, spinner: spinner, statusLabel: statusLabel,
                                     showApp: { shown.append("app") }, showError: { shown.append("error:\($0.code)") })
    _ = try await session.prepare()
    let running = Task { @MainActor in try await session.start(authorizationURL: authorize, expectedState: "s") }
    try await Task.sleep(for: .milliseconds(50))
    check(spinner.calls == ["start", "stop"], "the handler ran synchronously for didStartLoad and didFinishLoad")
    check(WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=c&state=s"), "the redirect is taken")
    check(spinner.calls == ["start", "stop", "stop"] && shown == ["app"], "didComplete reached the handler before handleOpenURL returned")
    check(statusLabel.text.hasPrefix("didComplete("), "observeAll saw it too: \(statusLabel.text)")
    _ = try await running.value
    let next = WebAuthSession(redirectURI: custom, parameters: .init(webviewType: .provider("kiosk")))
    _ = try await next.prepare()
    next.cancel()
    check(shown == ["app"], "the first session's observation does not see another session")
    check(statusLabel.text == "didFail(canceled)", "observeAll sees every session: \(statusLabel.text)")
    observations.everySession.invalidate()
    NotificationCenter.default.removeObserver(observations.failed)
}

// 4. The external-scheme policy is a parameter (what the embedded view does with it is its business).
let parameters = WebviewParameters(webviewType: .embedded, externalSchemes: .allow(["mailto"], askingForOthers: false))
check(parameters.externalSchemes.allows("MAILTO") && !parameters.externalSchemes.asksPerson, "allow-list, refuse others")
check(!WebviewParameters().externalSchemes.allowedSchemes.contains("zoommtg") && WebviewParameters().externalSchemes.asksPerson, "default asks")

// 6. README "Managed devices": sign in through the broker on the session bus. `.ci/run` runs this
// under Tests/Fixtures/BrokerDouble/run-with-double.sh (a private bus where the broker's D-Bus double runs).
if ProcessInfo.processInfo.environment["README_CHECK_BROKER"] == "1" {
    var steps: [String] = []
    let observation = WebAuthSession.observeAll { _, event in steps.append("\(event)") }
    let result = try await brokerSnippet()
    check(result.accessToken == "broker-access-token" && result.refreshToken == nil, "the broker's tokens come back, no refresh token")
    await MainActor.run {}  // the terminal step is delivered on a main-queue turn
    check(steps.first?.hasPrefix("willSwitchToBrokerApp(") == true && steps.last?.hasPrefix("didComplete(") == true,
          "willSwitchToBrokerApp first, didComplete last: \(steps)")
    observation.invalidate()
} else {
    print("skip broker sign-in (run under Tests/Fixtures/BrokerDouble/run-with-double.sh with README_CHECK_BROKER=1)")
}

print(failures.isEmpty ? "ALL OK" : "FAILURES: \(failures)")
exit(failures.isEmpty ? 0 : 1)

// README "Your own WebKitWebView": the observation snippets, as written.
@MainActor final class Spinner {
    var calls: [String] = []
    func start() { calls.append("start") }
    func stop() { calls.append("stop") }
}
@MainActor final class StatusLabel { var text = "" }
@MainActor func followSession(
    _ session: WebAuthSession, spinner: Spinner, statusLabel: StatusLabel,
    showApp: @escaping @MainActor () -> Void, showError: @escaping @MainActor (WebAuthError) -> Void
) -> (observation: WebAuthObservation, everySession: WebAuthObservation, failed: any NSObjectProtocol) {
    let observation = session.observe { event in          // @MainActor: call GTK, touch your state
        switch event {
        case .didStartLoad: spinner.start()
        case .didFinishLoad, .willSwitchToBrokerApp, .willSwitchToSystemBrowser: spinner.stop()
        case .didComplete: spinner.stop(); showApp()
        case .didFail(let error): spinner.stop(); showError(error)
        }
    }
    // Signing in with acquireToken (no session object in hand): every session's events.
    let everySession = WebAuthSession.observeAll { session, event in
        statusLabel.text = "\(event)"
    }
    let failed = NotificationCenter.default.addObserver(forName: .webAuthDidFail, object: nil, queue: nil) { note in
        let error = note.userInfo?[WebAuthNotificationKey.error] as? WebAuthError
        print("sign-in failed:", error?.message ?? "")          // not main-actor code
    }
    return (observation, everySession, failed)
}

// README "Your own WebKitWebView": a call's own observer (onStep) compiles as written (it needs a server: not run).
@MainActor final class Inspector { func follow(_ view: WebviewHandle) { _ = view } }
@MainActor func onStepSnippet(application: PublicClientApplication, spinner: Spinner, inspector: Inspector) async throws {
    var parameters = InteractiveTokenParameters(scopes: ["api.read"])
    parameters.onStep = { step in                          // @MainActor, in order
        if case .didFinishLoad = step.event { spinner.stop() }
        if let view = step.webview { inspector.follow(view) }
    }
    let result = try await application.acquireToken(with: parameters)
    _ = result
}

// README "The person's browser: did it open the page?" compiles as written.
@MainActor func offerCopyLinkIfTheBrowserNeverArrives(session: WebAuthSession, authorizationURL: URL) -> any NSObjectProtocol {
    func showCopyLinkHint(_ url: URL) { print("copy \(url)") }
    let opened = Task { @MainActor in
        try await Task.sleep(for: .seconds(5))
        showCopyLinkHint(authorizationURL)                // the browser never arrived
    }
    let observer = NotificationCenter.default.addObserver(forName: .webAuthDidStartLoad, object: session, queue: .main) { _ in
        opened.cancel()
    }
    return observer
}

// README "Real pages in the embedded view" and "Warm start" compile as written.
@MainActor func warmStartSnippets(application: PublicClientApplication, parameters: WebviewParameters) {
    _ = WebviewParameters(externalSchemes: .ask)
    _ = WebviewParameters(externalSchemes: .allow(["mailto"], askingForOthers: false))
    _ = WebviewParameters(externalSchemes: .refuseAll)
    EmbeddedWebviewProvider.allowedPermissions = [.notifications]          // default: none
    application.prewarm()
    WebAuthSession.prewarm(parameters: parameters, authorityHost: "login.example.com")
    EmbeddedWebviewProvider.prewarm(keepReady: true)
    EmbeddedWebviewProvider.releasePrewarmed()
}

// README "At work" (the intranet hosts Negotiate may go to) compiles as written.
@MainActor func negotiateHostsSnippet() throws {
    try EmbeddedWebviewProvider.allowNegotiate(to: [
        URL(string: "http://intranet.example.com:8080")!,
        URL(string: "https://adfs.example.com")!,   // no port: any port
    ])
}

// README "Your own WebKitWebView" compiles as written.
@MainActor func callerViewSnippet(authorizationURL: URL, state: String) async throws {
    let view = wvh_web_view(webkit_web_view_new())!        // WebKitWebView *, in your window's layout
    EmbeddedWebviewProvider.useDesktopProxy(in: WebviewHandle(view))   // the desktop's proxy as the library's window gets it
    let session = WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!,
                                 parameters: WebviewParameters(customWebview: WebviewHandle(view)))
    let response = try await session.start(authorizationURL: authorizationURL, expectedState: state)
    webkit_web_view_load_uri(view, "https://app.example/signed-in")   // yours, at once
    _ = response
}

// README "Passkeys and security keys" compiles as written (the test kit's example is a DocC
// article's: DocsCheck).
@MainActor func securityKeySnippets(myWebView: UnsafeMutablePointer<WebKitWebView>) -> WebviewParameters {
    var parameters = WebviewParameters(customWebview: WebviewHandle(myWebView))
    parameters.securityKeysInCustomWebview = true   // scripts go into your view for the session only
    return parameters
}

// README "When the embedded view cannot finish" compiles as written.
@MainActor func handOverSnippets(
    app: PublicClientApplication, myWebView: UnsafeMutablePointer<WebKitWebView>, session: WebAuthSession
) async throws {
    var parameters = WebviewParameters(customWebview: WebviewHandle(myWebView))
    parameters.systemBrowserHandOver = .automatic          // .askFirst: a question first; .never: no move
    parameters.embeddedAgentRefusals.append(
        EmbeddedAgentRefusal(name: "Example Corp", pageTextContains: ["Embedded browsers are not supported"]))
    let result = try await app.acquireToken(with: InteractiveTokenParameters(
        scopes: ["openid"], webviewParameters: parameters))   // finished in the view or in the browser
    _ = result
    let response = try await session.authenticate { redirectURI in
        let state = UUID().uuidString                       // a fresh request each time it is called
        return AuthorizationRequestURL(myAuthorizationURL(redirectURI: redirectURI, state: state), state: state)
    }
    _ = response
    _ = session.continueInSystemBrowser()
}

// README "Staying signed in" compiles as written.
func tokenCacheSnippets(app: PublicClientApplication, authority: URL, redirect: URL) async throws {
    if let account = try await app.allAccounts().first {          // read from the keyring
        let result = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["openid"], account: account))
        _ = result
        try await app.remove(account)                                   // signs that account out of the store
    }
    _ = PublicClientApplicationConfiguration(clientID: "my-desktop-app", authority: authority, redirectURI: redirect,
                                         tokenCacheStorage: try FileTokenCacheStorage(applicationID: "com.example.App"))
}

// README "When the store cannot keep the tokens" compiles as written.
@MainActor func tokenStoreFailureSnippets(
    app: PublicClientApplication, parameters: InteractiveTokenParameters, authority: URL, redirect: URL,
    askThePerson: @escaping @MainActor @Sendable (String) async -> Bool, showBanner: (String) -> Void
) async throws {
    var configuration = PublicClientApplicationConfiguration(clientID: "my-desktop-app", authority: authority, redirectURI: redirect)
    configuration.tokenCacheUnavailable = { error in       // a TokenCacheStorageError: .locked, .unavailable, .timedOut...
        await askThePerson(error.message) ? .keepInMemoryForThisRun : .stop
    }
    let result = try await app.acquireToken(with: parameters)
    if let problem = result.tokenCacheError, !problem.tokensWereKept {   // nil when the store kept the tokens
        showBanner("You are signed in, but will have to sign in again next time: \(problem.message)")
    }
    _ = app.unsavedTokensError                              // non-nil while some tokens are only in memory
    let observer = NotificationCenter.default.addObserver(forName: PublicClientApplication.tokenCacheDidFailNotification,
                                                          object: app, queue: .main) { note in
        let error = note.userInfo?["error"] as? TokenCacheStorageError
        _ = error
    }
    NotificationCenter.default.removeObserver(observer)
    try await app.saveUnsavedTokens()
}

// README "Write a provider plugin" and "Sign-in providers installed at run time" compile as written.
extension WebAuthError.Code { static let kioskLocked = WebAuthError.Code("kioskLocked") }
func pluginSnippets(url: URL) throws {
    _ = WebviewParameters(webviewType: .provider("kiosk"), providerOptions: ["kiosk.profile": "lobby"])
    let child = try ChildProcess(["/usr/libexec/kiosk", url.absoluteString])   // import ExternalWebviewProvider
    child.end(grace: .seconds(1))                                               // in dismiss()
}
@MainActor func installedSnippets() {
    let report = WebviewProviderRegistry.registerInstalledProviders()   // loaded, shadowed, refused, and why
    print(report)
}

// README "Start-up in a GTK app" compiles as written (it needs a display to run).
@MainActor func startUp() {
    gtk_init(nil, nil)
    MainLoopBridge.install()                              // once, after gtk_init
    WebviewProviderRegistry.registerBuiltInProviders()    // system browser + embedded view
}

// README "Get tokens (MSAL's shape)" compiles as written (it needs a server: not run).
@MainActor func getTokensSnippet(mainWindow: UnsafeMutablePointer<GtkWindow>) async throws {
    let app = try PublicClientApplication(configuration: .init(
        clientID: "my-desktop-app",
        authority: URL(string: "https://login.example.com/realms/main")!,   // OIDC discovery, cached
        redirectURI: URL(string: "http://127.0.0.1/callback")!))            // see "Which redirect URI" below

    let result = try await app.acquireToken(with: InteractiveTokenParameters(
        scopes: ["openid", "profile", "offline_access"],
        webviewParameters: WebviewParameters(parentWindow: WindowHandle(mainWindow))))
    print(result.account.username ?? "", result.accessToken, result.expiresOn)

    // Later: a valid token as is, an expired one renewed with the refresh token,
    // or WebAuthError.interactionRequired.
    let fresh = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["openid"], account: result.account))
    // Renewed even though the cached access token is still valid (after the server revoked it, say).
    let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["openid"], account: result.account, forceRefresh: true))
    _ = (fresh, renewed)
}

// README "Signing out and switching accounts" compiles as written (it needs a server: not run).
@MainActor func signOutSnippets(
    app: PublicClientApplication, account: Account, mainWindow: UnsafeMutablePointer<GtkWindow>, parameters: WebviewParameters
) async throws {
    let outcome = try await app.signOut(account, with: SignOutParameters(
        reach: .identityProvider,                                            // .thisApp: the tokens only
        webviewParameters: WebviewParameters(parentWindow: WindowHandle(mainWindow)),
        postLogoutRedirectURI: URL(string: "http://127.0.0.1/logged-out")!))  // registered at the server
    switch outcome.identityProvider {
    case .signedOut: break                                  // the provider's logout page came back to us
    case .siteDataCleared(let sites): print("no end_session_endpoint; deleted the data of", sites)
    case .notPossible(let reason): print(reason)            // e.g. the person's browser, no endpoint
    case .failed(let error): print(error.code)              // cancelled, timed out, a forged state...
    case .notAsked: break                                   // reach .thisApp
    }
    // outcome.tokensRemoved is true whatever the logout page did.

    let second = try await app.acquireToken(with: InteractiveTokenParameters(
        scopes: ["openid", "offline_access"], webviewParameters: parameters,
        prompt: .login, loginHint: "bob@example.com"))                  // loginHint prefills the name
    let everyone = try await app.allAccounts()                            // both accounts
    let bobsToken = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["openid"], account: second.account))
    _ = (everyone, bobsToken)
    app.signOut(account, with: SignOutParameters()) { result in _ = result }
}

// README "Signing in on another device" compiles as written (it needs a server: not run).
@MainActor func deviceCodeSnippet(app: PublicClientApplication, mainWindow: UnsafeMutablePointer<GtkWindow>) async throws {
    let result = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(
        scopes: ["openid", "offline_access"],
        display: .window(parent: WindowHandle(mainWindow))))   // or .terminal, .automatic, .app { ... }
    _ = result
    _ = DeviceCodeParameters(scopes: [], display: .app { challenge in
        print(challenge.userCode, challenge.verificationURI, challenge.verificationURIComplete as Any, challenge.instructions)
    })
}

// README "In the person's language" compiles as written (not run: it would change this process's language).
func localizationSnippet() {
    WebviewLocalization.languages = ["de"]          // the app's own language setting; nil: the person's
    WebviewLocalization.catalogDirectory = "/app/share/locale"   // where your package installs the catalogs
}

// README "Managed devices: the Microsoft identity broker", as written.
@MainActor func brokerSnippet() async throws -> AuthenticationResult {
    TokenBrokerRegistry.register(MicrosoftIdentityBroker())          // once, at start-up
    var configuration = PublicClientApplicationConfiguration(
        clientID: "00000000-0000-0000-0000-000000000000",              // your Entra ID app registration
        authority: URL(string: "https://login.microsoftonline.com/contoso.onmicrosoft.com")!,
        redirectURI: URL(string: "http://127.0.0.1/callback")!,       // for the web flow when there is no broker
        tokenCacheStorage: InMemoryTokenCacheStorage())                // (not in the README: no keyring here)
    configuration.usesTokenBroker = true
    let app = try PublicClientApplication(configuration: configuration)

    let result = try await app.acquireToken(with: InteractiveTokenParameters(
        scopes: ["https://graph.microsoft.com/.default"]))           // webviewParameters: as for the web flow
    let accounts = try await app.allAccounts()                         // the broker's accounts
    let fresh: AuthenticationResult
    do {
        fresh = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["User.Read"], account: accounts[0]))
    } catch {                                                           // a WebAuthError
        guard error.code == .interactionRequired else { throw error }
        fresh = try await app.acquireToken(with: InteractiveTokenParameters(scopes: ["User.Read"]))   // the broker asks the person
    }
    check(fresh.account == accounts[0], "silent through the broker")
    check(try await app.remove(accounts[0]), "remove through the broker")
    return result
}

/// The README's stand-in for the app's own authorization URL builder.
func myAuthorizationURL(redirectURI: URL, state: String) -> URL {
    var components = URLComponents(string: "https://login.example.com/authorize")!
    components.queryItems = [.init(name: "redirect_uri", value: redirectURI.absoluteString), .init(name: "state", value: state)]
    return components.url!
}

/// README "At work": a kiosk's own certificate, and an app that answers the certificate request itself.
func kioskCertificateParameters() -> WebviewParameters {
    var parameters = WebviewParameters(webviewType: .embedded)
    parameters.clientCertificate = .pem(
        certificate: URL(fileURLWithPath: "/etc/kiosk/client.pem"),
        privateKey: URL(fileURLWithPath: "/etc/kiosk/client.key"))
    parameters.clientCertificate = .pkcs12(URL(fileURLWithPath: "/etc/kiosk/client.p12"), password: "…")
    parameters.clientCertificate = .pkcs11(uri: "pkcs11:token=Kiosk;object=signin;type=cert", pin: "…")
    parameters.clientCertificate = nil
    // Or answer yourself instead of the library's chooser (nil ends the sign-in userCanceled):
    parameters.clientCertificateChooser = { request in
        request.candidates.first { $0.issuer.contains("CN=Contoso Issuing CA") }?.certificate
    }
    return parameters
}
