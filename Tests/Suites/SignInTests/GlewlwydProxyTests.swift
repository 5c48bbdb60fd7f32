import Foundation
import Synchronization
import ScenarioSupport
import Testing
import WebviewHost

@testable import SignIn

/// The desktop's proxy is the route of every request of a sign-in (issue 33): the embedded view's
/// pages and SignIn's own requests (discovery, keys, token, device code, renewal) go through a
/// real recording proxy (tinyproxy) the test starts, set as GNOME's proxy settings (manual) or as
/// the environment's `http_proxy`; with the proxy down, the sign-in fails at once with `network`.
extension GlewlwydSignInTests {
    /// The desktop's proxy as GNOME's settings give it: mode manual, `host:port` for HTTP, no
    /// hosts bypassed, read by GIO's GNOME resolver (glib-networking) from a keyfile backend.
    /// `credential`: GNOME's `use-authentication` on, with this user name and password.
    func gnomeProxyEnvironment(desktop: TestDesktop, port: Int, credential: (user: String, password: String)? = nil) throws -> [String: String] {
        var environment = desktop.environment
        let config = URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!).appendingPathComponent("glib-2.0/settings")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
            [system/proxy]
            mode='manual'
            ignore-hosts=@as []
            [system/proxy/http]
            host='127.0.0.1'
            port=\(port)
            \(credential.map { "use-authentication=true\nauthentication-user='\($0.user)'\nauthentication-password='\($0.password)'" } ?? "")
            """.write(to: config.appendingPathComponent("keyfile"), atomically: true, encoding: .utf8)
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment["GSETTINGS_BACKEND"] = "keyfile"
        // The test desktop's XDG_DATA_DIRS holds no schemas: org.gnome.system.proxy from the system.
        environment["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy"] { environment[name] = "" }
        return environment
    }

    /// `program`: SignInScenarios (GTK 3) by default, or SignInScenariosGTK4.
    func proxiedRun(
        _ scenario: SignInScenario, _ arguments: [String], environment: [String: String], program: String? = nil,
        launcher: [String] = []
    ) async throws -> ScenarioReport {
        var environment = environment
        environment["ISSUER"] = server.issuer.absoluteString
        environment["GLEWLWYD_USERNAME"] = server.username
        environment["GLEWLWYD_PASSWORD"] = server.password
        // The library's proxy dialog answered with real key events: an X server of its own (key
        // events go to the focused window of a display, which another test's window could take).
        let display: DisplayServer = environment["SIGNIN_PROXY_DIALOG"] == nil ? .x11 : .privateX11
        return try await ScenarioRunner.run(
            scenario, in: program, arguments: arguments, environment: environment, timeout: .seconds(150), launcher: launcher, display: display)
    }

    /// What went through `proxy` to Glewlwyd: SignIn's requests and the view's pages, each named once.
    func expectEverythingThrough(_ proxy: some ProxyRecording, _ report: ScenarioReport) {
        let glewlwyd = "\(server.issuer.host ?? ""):\(server.issuer.port ?? 80)"
        let carried = proxy.paths(at: glewlwyd)
        #expect(report[.outcome] == "success", "\(report[.message] ?? ""); the view's loads: \(report[.loads] ?? []); through the proxy: \(carried)")
        #expect(report[.username] == server.userEmail)
        #expect(report[.renewedAccessTokenDiffers] == true)
        #expect(report[.signOutOutcome] == "signedOut")
        #expect(report[.deviceUsername] == server.userEmail)
        let oidc = server.issuer.path
        // SignIn's own requests.
        #expect(carried.contains("GET \(oidc)/.well-known/openid-configuration"), "discovery: \(carried)")
        #expect(carried.contains { $0.hasPrefix("GET \(oidc)/jwks") }, "keys: \(carried)")
        #expect(carried.filter { $0 == "POST \(oidc)/token" }.count >= 3, "code, refresh and device-code token requests: \(carried)")
        #expect(carried.contains { $0.hasPrefix("POST \(oidc)/device_authorization") }, "device authorization: \(carried)")
        // The view's pages: the authorization request, and the end-session page.
        #expect(carried.contains("GET \(oidc)/auth"), "the view's authorization page: \(carried)")
        #expect(carried.contains { $0.hasPrefix("GET \(oidc)/end_session") }, "the view's sign-out page: \(carried)")
    }

    /// The scenario programs: GTK 3's, and GTK 4's (the same proxy scenario, linked).
    static let toolkitPrograms = ["SignInScenarios", "SignInScenariosGTK4"]

    /// A desktop without a proxy of its own (no GNOME settings, no `*_proxy` variables) and the
    /// app's proxy `url` (`networkProxy`).
    func appProxyEnvironment(desktop: TestDesktop, url: String) -> [String: String] {
        var environment = desktop.environment
        environment["SIGNIN_NETWORK_PROXY"] = url
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy"] { environment[name] = "" }
        return environment
    }

    @Test("GNOME's proxy settings (manual): sign-in in the library's window, renewal, sign-out and device code all go through the proxy",
          arguments: toolkitPrograms)
    func everythingThroughGNOMEProxy(_ program: String) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID],
            environment: try gnomeProxyEnvironment(desktop: desktop, port: proxy.port), program: program)
        expectEverythingThrough(proxy, report)
    }

    @Test("The environment's http_proxy: sign-in in the app's own view, renewal, sign-out and device code all go through the proxy",
          arguments: toolkitPrograms)
    func everythingThroughEnvironmentProxy(_ program: String) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = desktop.environment
        environment["http_proxy"] = proxy.url
        environment["no_proxy"] = ""
        environment["XDG_CURRENT_DESKTOP"] = ""
        let report = try await proxiedRun(
            .throughProxy, ["view", server.clientID, server.deviceClientID], environment: environment, program: program)
        expectEverythingThrough(proxy, report)
    }

    @Test("The app's proxy (networkProxy), no desktop proxy: sign-in in the library's window, renewal, sign-out and device code all go through it",
          arguments: toolkitPrograms)
    func everythingThroughAppProxy(_ program: String) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID],
            environment: appProxyEnvironment(desktop: desktop, url: proxy.url), program: program)
        expectEverythingThrough(proxy, report)
    }

    @Test("The app's SOCKS5 proxy: sign-in in the library's window, renewal, sign-out and device code all go through it",
          arguments: toolkitPrograms)
    func everythingThroughAppSocksProxy(_ program: String) async throws {
        let proxy = try await SocksRecordingProxy()
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID],
            environment: appProxyEnvironment(desktop: desktop, url: proxy.url), program: program)
        expectEverythingThrough(proxy, report)
    }

    @Test("WEBVIEW_HOST_PROVIDER=help names the desktop's proxy (GNOME's settings), and says when there is none")
    func helpNamesTheProxy() async throws {
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let port = try RecordingProxy.freePort()
        let proxied = try await proxiedRun(.help, [], environment: try gnomeProxyEnvironment(desktop: desktop, port: port))
        #expect(proxied[.message]?.contains("proxy: http://127.0.0.1:\(port) (the desktop's, from GProxyResolverGnome") == true, "\(proxied[.message] ?? "")")
        var direct = desktop.environment
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy", "XDG_CURRENT_DESKTOP"] { direct[name] = "" }
        let none = try await proxiedRun(.help, [], environment: direct)
        #expect(none[.message]?.contains("proxy: none, direct connections") == true, "\(none[.message] ?? "")")
    }

    @Test("A proxy that asks for a password (407): asked once, the answer shared by the view's pages and SignIn's requests of a sign-in, renewal, sign-out and device code")
    func proxyPasswordAskedOnce() async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = try gnomeProxyEnvironment(desktop: desktop, port: proxy.port)
        environment["SIGNIN_PROXY_PASSWORDS"] = "proxy-secret"
        let report = try await proxiedRun(.throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment)
        expectEverythingThrough(proxy, report)
        #expect(report[.proxyAsks] == 1, "asked once for the whole run")
    }

    @Test("A proxy that asks for a password and no app answer: the library's dialog asks once (during discovery, before any sign-in window), answered by keyboard; the view's pages and SignIn's requests of a sign-in, renewal, sign-out and device code all use that answer",
          arguments: toolkitPrograms)
    func proxyPasswordInTheLibrarysDialog(_ program: String) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = try gnomeProxyEnvironment(desktop: desktop, port: proxy.port)
        environment["SIGNIN_PROXY_DIALOG"] = "alice-proxy proxy-secret"
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment, program: program)
        expectEverythingThrough(proxy, report)
        #expect(report[.proxyAsks] == 1, "asked once for the whole run: \(report[.proxyDialogTexts] ?? [])")
        #expect(report[.proxyDialogTexts]?.contains { $0.hasPrefix("The proxy 127.0.0.1:\(proxy.port) asks for a user name and password") } == true,
                "\(report[.proxyDialogTexts] ?? [])")
    }

    @Test("Cancel in the library's proxy dialog during discovery: the sign-in fails at once with a network error that says the question was cancelled, no page shown")
    func proxyPasswordDialogCancelledInDiscovery() async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = try gnomeProxyEnvironment(desktop: desktop, port: proxy.port)
        environment["SIGNIN_PROXY_DIALOG"] = "cancel"
        let report = try await proxiedRun(.throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment)
        #expect(report[.outcome] == "network", "\(report[.message] ?? "")")
        let message = report[.message] ?? ""
        #expect(message.contains("asks for a user name and password") && message.contains("the question was cancelled"), "\(message)")
        #expect(report[.proxyAsks] == 1)
        let glewlwyd = "\(server.issuer.host ?? ""):\(server.issuer.port ?? 80)"
        #expect(!proxy.paths(at: glewlwyd).contains("GET \(server.issuer.path)/auth"), "no sign-in page was loaded")
    }

    @Test("The desktop's proxy is down: the sign-in fails at once with a network error that names the proxy")
    func proxyDown() async throws {
        let port = try RecordingProxy.freePort()
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let started = ContinuousClock.now
        let report = try await proxiedRun(
            .embeddedWindow, [server.clientID], environment: try gnomeProxyEnvironment(desktop: desktop, port: port))
        #expect(report[.outcome] == "network", "\(report[.message] ?? "")")
        #expect(report[.message]?.contains("127.0.0.1:\(port)") == true, "names the proxy: \(report[.message] ?? "")")
        #expect(report[.message]?.contains("proxy") == true, "\(report[.message] ?? "")")
        #expect(report[.notifications]?.isEmpty == true, "no page was shown: \(report[.notifications] ?? [])")
        #expect(ContinuousClock.now - started < Patience.scaled(.seconds(30)), "fails at once, not at the 30 s network timeout")
    }
}

/// The app's proxy in-process: SignIn's own requests through it (the scripted browser's are not).
extension GlewlwydSignInTests {
    func makeApplication(proxy: String) throws -> PublicClientApplication {
        var configuration = PublicClientApplicationConfiguration(
            clientID: server.clientID, authority: server.issuer, redirectURI: requestedRedirect,
            defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15, tokenCacheStorage: InMemoryTokenCacheStorage())
        configuration.networkProxy = try NetworkProxy(proxy)
        return try PublicClientApplication(configuration: configuration)
    }

    @Test("The app's proxy: discovery, keys and the token requests of a sign-in and a renewal go through it")
    func signInRequestsThroughAppProxy() async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let app = try makeApplication(proxy: proxy.url)
        let result = try await acquireToken(app, through: provider(.signIn([alice]))).get()
        _ = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: [], account: result.account, forceRefresh: true))
        let carried = proxy.paths(at: "\(server.issuer.host ?? ""):\(server.issuer.port ?? 80)")
        let oidc = server.issuer.path
        #expect(carried.contains("GET \(oidc)/.well-known/openid-configuration"), "\(carried)")
        #expect(carried.contains { $0.hasPrefix("GET \(oidc)/jwks") }, "\(carried)")
        #expect(carried.filter { $0 == "POST \(oidc)/token" }.count == 2, "the code exchange and the refresh: \(carried)")
    }

    /// Runs `body` with a proxy that asks for a password (407) and refuses every one
    /// (Proxy/refusing_proxy.py): its port and the file it logs each request to.
    func withRefusingProxy(_ body: (_ port: Int, _ log: URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("refusing-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("requests.log")
        let proxy = try CleanSpawn(
            ["python3", Checkout.fixture("Proxy/refusing_proxy.py").path, log.path], environment: ProcessInfo.processInfo.environment,
            processGroup: true)
        defer {
            kill(-proxy.pid, SIGTERM)
            _ = proxy.waitForExit()
        }
        let port = try #require(String(decoding: proxy.output!.availableData, as: UTF8.self).split(separator: "\n").first.flatMap { Int($0) })
        try await body(port, log)
    }

    @Test("An ask set in one registry scope answers the proxy's questions of that scope's SignIn requests; the process's stays unset")
    func scopedProxyAskAnswersSignInRequests() async throws {
        try await withRefusingProxy { port, _ in
            let challenges = Mutex<[ProxyChallenge]>([])
            defer { ProxyAuthentication.forgetCredentials() }
            let app = try makeApplication(proxy: "http://127.0.0.1:\(port)")
            let ask: ProxyAuthentication.Ask = { challenge in
                challenges.withLock { $0.append(challenge) }
                return ProxyCredential(user: "scoped-user", password: "scoped-secret-\(challenge.attempt)")
            }
            let outcome = await acquireToken(app, through: provider(.signIn([alice]))) { ProxyAuthentication.ask = ask }
            #expect(ProxyAuthentication.ask == nil, "the scope's ask stayed in its scope")
            guard case .failure(let error) = outcome else {
                Issue.record("signed in through a proxy that refuses every password")
                return
            }
            #expect(error.code == .network)
            #expect(challenges.withLock { $0.map(\.attempt) } == [1, 2, 3], "the scope's ask was asked for SignIn's first request: \(error.message)")
        }
    }

    @Test("A proxy that refuses every password: three questions, then a network error saying so (the password in no message)")
    func wrongProxyPasswordThreeTimes() async throws {
        try await withRefusingProxy { port, log in
            let challenges = Mutex<[ProxyChallenge]>([])
            ProxyAuthentication.ask = { challenge in
                challenges.withLock { $0.append(challenge) }
                return ProxyCredential(user: "alice-proxy", password: "wrong-secret-\(challenge.attempt)")
            }
            defer {
                ProxyAuthentication.ask = nil
                ProxyAuthentication.forgetCredentials()
            }
            let app = try makeApplication(proxy: "http://127.0.0.1:\(port)")
            let outcome = await acquireToken(app, through: provider(.signIn([alice])))
            guard case .failure(let error) = outcome else {
                Issue.record("signed in through a proxy that refuses every password")
                return
            }
            #expect(error.code == .network)
            #expect(error.message.contains("The proxy http://127.0.0.1:\(port) refused the user name and password 3 times"), "\(error.message)")
            #expect(!error.message.contains("wrong-secret") && !"\(error)".contains("wrong-secret"))
            #expect(challenges.withLock { $0.map(\.attempt) } == [1, 2, 3])
            #expect(challenges.withLock { $0.map(\.proxy) } == Array(repeating: "127.0.0.1:\(port)", count: 3))
            let requests = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n") ?? []
            #expect(requests.filter { $0.hasSuffix(" with") }.count == 3, "three answers tried: \(requests)")
        }
    }

    @Test("The app's proxy refuses connections: a network error at once that names the proxy, no page shown")
    func appProxyDown() async throws {
        let port = try RecordingProxy.freePort()
        let app = try makeApplication(proxy: "http://127.0.0.1:\(port)")
        let browser = provider(.signIn([alice]))
        let outcome = await acquireToken(app, through: browser)
        guard case .failure(let error) = outcome else {
            Issue.record("signed in without the proxy")
            return
        }
        #expect(error.code == .network)
        #expect(error.message.contains("http://127.0.0.1:\(port)"), "\(error.message)")
        #expect(error.message.contains("proxy"), "\(error.message)")
        // Refused at once, not the 15 s timeout (which says "did not answer within"); the words
        // tell, a wall-clock bound would not on a loaded machine.
        #expect(!error.message.contains("did not answer within"), "at once, not at the 15 s timeout: \(error.message)")
        #expect(browser.log.authorizationURLs.isEmpty, "no sign-in page was opened: \(browser.log.all)")
    }
}
