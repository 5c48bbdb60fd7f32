import Foundation
import ScenarioSupport
import Testing

/// The app's proxy in the library's window (issue 33), on both toolkits: the session's pages go
/// through a real recording proxy (tinyproxy); the shared web context goes direct again for the
/// next session without one.
extension EmbeddedWebviewProviderTests {
    @Test("The app's proxy (networkProxy): the library's window loads through it; the next session without one goes direct",
          arguments: Platform.x11)
    func appProxyInTheLibrarysWindow(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let report = try await Self.scenario(.proxy, proxy.url, on: platform)
        #expect(report[.outcome.prefixed(by: "proxied.")] == "success")
        #expect(report[.code.prefixed(by: "proxied.")] == "proxied")
        #expect(report[.outcome.prefixed(by: "direct.")] == "success")
        #expect(report[.code.prefixed(by: "direct.")] == "direct")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried == ["GET /authorize-proxied"], "through the proxy: \(carried); all it carried: \(proxy.requests)")
    }

    /// The route is set on the library's shared web context by each session, and reaches WebKit's
    /// network process on another connection than the page's request: each session's first
    /// request must take its own route, however fast the page asks and however busy the machine.
    /// (A CI run's window once showed the proxy's answer to a request sent on the previous route;
    /// the race was not reproduced here in 80 such sessions beside a full test run, with the
    /// library's wait for the network process (`SignInProxy.settle`) taken out: this guards the
    /// behaviour, it does not prove the race.)
    @Test("The app's proxy and none in turn, four times, session after session: every page goes its own session's way",
          arguments: Platform.x11)
    func routeChangesReachEachSession(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let rounds = 4
        let report = try await proxy.explaining { try await Self.scenario(.proxy, proxy.url, "\(rounds)", on: platform) }
        let names = (0..<rounds).flatMap { ["proxied-\($0)", "direct-\($0)"] }
        #expect(report[.routedSessions] == names.map { "\($0): success \($0)" })
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried == names.filter { $0.hasPrefix("proxied") }.map { "GET /authorize-\($0)" }, "through the proxy: \(carried)")
    }
}

extension EmbeddedWebviewProviderTests {
    /// The `proxy-password` scenario (the app answers the proxy's question) with `httpProxy` as the desktop's `http_proxy`.
    /// `proxy`: the tinyproxy behind `httpProxy`, whose log a failure shows. `scenario`: another
    /// scenario run the same way; `httpsToo`: `https_proxy` is `httpProxy` as well; `more`: added
    /// to the scenario's environment (a ProxyResolver portal's, with an empty `httpProxy`).
    func proxyPasswordRun(
        _ scenario: EmbeddedScenario = .proxyPassword, httpProxy: String, httpsToo: Bool = false, _ arguments: [String], on platform: Platform,
        through proxy: RecordingProxy? = nil, environment more: [String: String] = [:]
    ) async throws -> ScenarioReport {
        let home = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = [
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            "http_proxy": httpProxy, "no_proxy": "", "XDG_CURRENT_DESKTOP": "",
        ]
        if httpsToo { environment["https_proxy"] = httpProxy }
        environment.merge(more) { _, new in new }
        let run = { [environment] in
            try await ScenarioRunner.run(scenario, in: platform.toolkit.program, arguments: arguments, environment: environment, display: platform.display)
        }
        guard let proxy else { return try await run() }
        return try await proxy.explaining { try await run() }
    }

    @Test("A proxy that asks for a password (the desktop's, http_proxy): the app is asked once; the library's window and the app's view both load through it",
          arguments: Platform.x11)
    func proxyPasswordAskedOnceForWindowAndView(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyPasswordRun(httpProxy: proxy.url, ["proxy-secret"], on: platform, through: proxy)
        #expect(report[.outcome.prefixed(by: "window.")] == "success")
        #expect(report[.code.prefixed(by: "window.")] == "window")
        #expect(report[.outcome.prefixed(by: "view.")] == "success")
        #expect(report[.code.prefixed(by: "view.")] == "view")
        #expect(report[.proxyQuestions] == ["127.0.0.1:\(proxy.port) 1"], "asked once")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-window") && carried.contains("GET /authorize-view"), "\(carried)")
    }
}

/// The library's own question for a proxy's password (issue 33): the app set no
/// `ProxyAuthentication.ask`, so the embedded provider's dialog asks, answered with real key
/// events (xdotool) through a real proxy (tinyproxy with Basic auth).
extension EmbeddedWebviewProviderTests {
    func proxyDialogRun(_ proxy: RecordingProxy, _ arguments: String..., on platform: Platform) async throws -> ScenarioReport {
        try await proxy.explaining { try await proxyDialogRun(url: proxy.url, arguments, on: platform) }
    }

    func proxyDialogRun(url: String, _ arguments: String..., on platform: Platform) async throws -> ScenarioReport {
        try await proxyDialogRun(url: url, arguments, on: platform)
    }

    func proxyDialogRun(
        url: String, _ arguments: [String], on platform: Platform, environment more: [String: String] = [:]
    ) async throws -> ScenarioReport {
        let home = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        return try await ScenarioRunner.run(
            EmbeddedScenario.proxyPasswordDialog, in: platform.toolkit.program, arguments: arguments,
            environment: [
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                "http_proxy": url, "no_proxy": "", "XDG_CURRENT_DESKTOP": "",
            ].merging(more) { _, new in new },
            // Its own X server: real key events go to the focused window of a display, which another
            // test's window could take.
            timeout: Patience.scaled(.seconds(240)), display: platform.keyboardDisplay)
    }

    @Test("A proxy that asks for a password and no app answer: the library's dialog asks once, over the sign-in window; the window and the app's view load through the proxy",
          arguments: Platform.x11)
    func proxyPasswordInTheLibrarysDialog(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyDialogRun(proxy, "right", "alice-proxy", "proxy-secret", on: platform)
        #expect(report[.outcome.prefixed(by: "window.")] == "success", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        #expect(report[.code.prefixed(by: "window.")] == "window")
        #expect(report[.outcome.prefixed(by: "view.")] == "success", "\(report[.errorMessage.prefixed(by: "view.")] ?? "")")
        #expect(report[.code.prefixed(by: "view.")] == "view")
        let dialogs = report[.proxyDialogs] ?? []
        #expect(dialogs.filter { $0 == "window: Sign in to the proxy" }.count == 1, "asked once, nothing left open: \(dialogs)")
        #expect(dialogs.contains("The proxy 127.0.0.1:\(proxy.port) asks for a user name and password for “Tinyproxy” to connect to the sign-in server.\n\n"
            + "They are kept in memory until the app quits, never saved to disk."), "names the proxy and its realm: \(dialogs)")
        #expect(dialogs.contains("User name") && dialogs.contains("Password"), "labelled fields: \(dialogs)")
        #expect(!dialogs.contains { $0.hasPrefix("still open") }, "\(dialogs)")
        #expect(report[.proxyDialogOverSignInWindow] == ["sign-in window"])
        if platform.toolkit == .gtk3 {
            #expect(report[.proxyFieldNames] == ["User name", "Password"], "a screen reader's names for the fields")
        }
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-window") && carried.contains("GET /authorize-view"), "\(carried)")
    }

    @Test("The library's window never asks the person's keyring: with a Secret Service that takes calls and never answers, the proxy's question comes, and the keyring got no call",
          arguments: Platform.x11)
    func proxyQuestionWithoutTheKeyring(_ platform: Platform) async throws {
        // WebKit looks up a password saved for the host in the keyring (libsecret) before each
        // question, unless its persistent credential storage is off; a keyring that hangs then
        // held every question for D-Bus's 25 s (seen in full test runs: three wrong passwords
        // took 75 s of waiting).
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let calls = folder.appendingPathComponent("keyring-calls.log")
        let keyring = try CleanSpawn(
            ["/usr/bin/python3", Checkout.fixture("SecretService/silent_keyring.py").path, calls.path],
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        defer {
            kill(-keyring.pid, SIGTERM)
            _ = keyring.waitForExit()
        }
        let address = try #require(
            String(decoding: keyring.output!.availableData, as: UTF8.self).split(separator: "\n").first.map(String.init))
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        // The library's window only ("cancel": the question, then Escape); an app's own view is
        // in the app's context, whose credential storage is the app's to choose.
        let report = try await proxyDialogRun(url: proxy.url, ["cancel"], on: platform, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        #expect(report[.outcome.prefixed(by: "window.")] == "network", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        #expect((report[.errorMessage.prefixed(by: "window.")] ?? "").contains("cancelled"))
        #expect((report[.proxyDialogs] ?? []).filter { $0 == "window: Sign in to the proxy" }.count == 1, "the question came")
        let asked = ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(asked.isEmpty, "the keyring was asked: \(asked)")
    }

    @Test("Cancel in the library's proxy dialog ends the sign-in at once with a network error that says so", arguments: Platform.x11)
    func proxyPasswordDialogCancelled(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyDialogRun(proxy, "cancel", on: platform)
        #expect(report[.outcome.prefixed(by: "window.")] == "network", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        let message = report[.errorMessage.prefixed(by: "window.")] ?? ""
        #expect(message.contains("The proxy 127.0.0.1:\(proxy.port) asks for a user name and password") && message.contains("cancelled"), "\(message)")
        let dialogs = report[.proxyDialogs] ?? []
        #expect(dialogs.filter { $0 == "window: Sign in to the proxy" }.count == 1 && !dialogs.contains { $0.hasPrefix("still open") }, "\(dialogs)")
        #expect(report[.authorizeRequests] == 0, "nothing reached the sign-in server")
    }

    @Test("A wrong proxy password three times in the library's dialog: asked three times (saying the proxy refused), then a network error saying so",
          arguments: Platform.x11)
    func proxyPasswordDialogRefusedThrice(_ platform: Platform) async throws {
        // A proxy that says 407 to each wrong password, as squid does (tinyproxy says 401: below).
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("requests.log")
        let refusing = try CleanSpawn(
            ["python3", Checkout.fixture("Proxy/refusing_proxy.py").path, log.path], environment: ProcessInfo.processInfo.environment,
            processGroup: true)
        defer {
            kill(-refusing.pid, SIGTERM)
            _ = refusing.waitForExit()
        }
        let port = try #require(String(decoding: refusing.output!.availableData, as: UTF8.self).split(separator: "\n").first.flatMap { Int($0) })
        let report = try await proxyDialogRun(url: "http://127.0.0.1:\(port)", "wrong-thrice", "alice-proxy", on: platform)
        #expect(
            report[.outcome.prefixed(by: "window.")] == "network",
            """
            \(report[.errorMessage.prefixed(by: "window.")] ?? ""); the session's notifications: \(report[.events.prefixed(by: "window.")] ?? []); \
            the views' failed loads: \(report[.viewLoadFailures.prefixed(by: "window.")] ?? []); the proxy saw: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")
            """)
        let message = report[.errorMessage.prefixed(by: "window.")] ?? ""
        #expect(message.contains("The proxy 127.0.0.1:\(port) refused the user name and password 3 times"), "\(message)")
        #expect(!message.contains("wrong-secret"), "no password in the message")
        let dialogs = report[.proxyDialogs] ?? []
        #expect(dialogs.filter { $0 == "window: Sign in to the proxy" }.count == 3, "\(dialogs)")
        let refused = "The proxy refused the last user name and password. Try again."
        #expect(dialogs.filter { $0.contains(refused) }.count == 2, "the second and third say the proxy refused: \(dialogs)")
        #expect(dialogs.filter { $0.contains("This is the last try") }.count == 1, "\(dialogs)")
        #expect(!dialogs.contains { $0.hasPrefix("still open") }, "\(dialogs)")
        let requests = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(requests.filter { $0.hasSuffix(" with") }.count == 3, "the three answers went to the proxy: \(requests)")
    }

    @Test("A proxy that says 401 to a wrong password (tinyproxy): the sign-in ends at once with a network error saying so, no second question that could not be used",
          arguments: Platform.x11)
    func proxyPasswordDialogRefusedWith401(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyDialogRun(proxy, "wrong-once", "alice-proxy", on: platform)
        #expect(
            report[.outcome.prefixed(by: "window.")] == "network",
            """
            \(report[.errorMessage.prefixed(by: "window.")] ?? ""); the dialogs: \(report[.proxyDialogs] ?? []); \
            the proxy saw: \(proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")); \
            the session's notifications: \(report[.events.prefixed(by: "window.")] ?? []); \
            the views' failed loads: \(report[.viewLoadFailures.prefixed(by: "window.")] ?? [])
            """)
        let message = report[.errorMessage.prefixed(by: "window.")] ?? ""
        #expect(message.contains("The proxy 127.0.0.1:\(proxy.port) refused the user name and password with 401"), "\(message)")
        let dialogs = report[.proxyDialogs] ?? []
        #expect(dialogs.filter { $0 == "window: Sign in to the proxy" }.count == 1 && !dialogs.contains { $0.hasPrefix("still open") }, "\(dialogs)")
    }
}

/// The desktop's proxy with its user name and password in its URI (issue 40): the library's
/// window is given the desktop's proxy without them, and they answer the proxy's first 407. An
/// app's own view keeps its network session's proxy (by default the desktop's URI as it is, which
/// WebKit's libsoup cannot use) unless the app calls `EmbeddedWebviewProvider.useDesktopProxy(in:)`.
extension EmbeddedWebviewProviderTests {
    @Test("http_proxy with the right user name and password in its URI: the library's window loads through the proxy and nobody is asked",
          arguments: Platform.x11)
    func credentialInProxyURI(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyPasswordRun(
            httpProxy: "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)", ["proxy-secret", "window-only"], on: platform, through: proxy)
        #expect(report[.outcome.prefixed(by: "window.")] == "success", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        #expect(report[.code.prefixed(by: "window.")] == "window")
        #expect(report[.proxyQuestions] == [], "nobody asked")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-window"), "\(carried)")
    }

    @Test("http_proxy with a user name and password, the app's own view given useDesktopProxy(in:): the view loads through the proxy and nobody is asked",
          arguments: Platform.x11)
    func credentialInProxyURIForTheAppsView(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyPasswordRun(
            httpProxy: "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)", ["proxy-secret", "view-desktop-proxy"], on: platform, through: proxy)
        #expect(report[.desktopProxyApplied] == true)
        #expect(report[.outcome.prefixed(by: "window.")] == "success", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        #expect(report[.outcome.prefixed(by: "view.")] == "success", "\(report[.errorMessage.prefixed(by: "view.")] ?? "")")
        #expect(report[.code.prefixed(by: "view.")] == "view")
        #expect(report[.proxyQuestions] == [], "nobody asked: the URI's credential answered")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-view"), "\(carried)")
    }

    /// Every real provider's page is https: through an HTTP proxy it goes in a CONNECT tunnel, which
    /// an authenticating proxy answers 407 before opening it.
    @Test("https_proxy with the right user name and password in its URI, an https sign-in page: the CONNECT tunnel is opened with them, in the library's window and in the app's view given useDesktopProxy(in:), nobody asked",
          arguments: Platform.x11, ["window", "view"])
    func credentialInProxyURIForHTTPS(_ platform: Platform, _ mode: String) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let report = try await proxyPasswordRun(
            .proxyTLS, httpProxy: "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)", httpsToo: true, [mode], on: platform, through: proxy)
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? ""); the proxy carried: \(proxy.requests)")
        #expect(report[.code] == "tls")
        #expect(report[.proxyQuestions] == [], "nobody asked: the URI's credential opened the tunnel")
        #expect(proxy.requests.contains("CONNECT 127.0.0.1:\(report[.idpPort] ?? 0)"), "\(proxy.requests)")
        #expect((report[.tlsServerRequests] ?? 0) >= 1)
    }

    /// A squid-like proxy (407 to anything without the right credential), as libsoup meets it with
    /// user info in the proxy's URI: the load fails ("restarted too many times"). (tinyproxy
    /// answers that request with its own 400 page, which the view shows as the sign-in page: the
    /// session then waits for the person, as any page does; the README says so.)
    @Test("A desktop proxy with a user name and password (http_proxy, or the ProxyResolver portal in a Flatpak), the app's own view left as it is: the view's sign-in ends at once with network, saying what the app can do, the password in no message",
          arguments: Platform.x11, ["http_proxy", "portal"])
    func credentialInProxyURIViewLeftAsItIs(_ platform: Platform, _ source: String) async throws {
        let proxy = try BasicAuthProxy(user: "alice-proxy", password: "proxy-secret")
        defer { proxy.stop() }
        let uri = "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)"
        let portal = source == "portal" ? try ProxyPortal(proxy: uri) : nil
        defer { portal?.stop() }
        let report = try await proxyPasswordRun(httpProxy: portal == nil ? uri : "", ["proxy-secret"], on: platform, environment: portal?.environment ?? [:])
        #expect(report[.outcome.prefixed(by: "window.")] == "success", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        let message = report[.errorMessage.prefixed(by: "view.")] ?? ""
        #expect(report[.outcome.prefixed(by: "view.")] == "network", "\(message); the view's failed loads: \(report[.viewLoadFailures.prefixed(by: "view.")] ?? [])")
        #expect(message.contains("useDesktopProxy(in:)"), "\(message)")
        #expect(!message.contains("proxy-secret") && !message.contains("alice-proxy"), "\(message)")
    }
}

/// A Flatpak app: GIO's resolver is the ProxyResolver portal, which passes on the host's answer,
/// GNOME's resolver writing the proxy's user name and password into its URI. The library asks the
/// portal ahead of the session (a D-Bus call, not on the main thread's way) and treats its answer
/// as it treats `http_proxy`'s.
extension EmbeddedWebviewProviderTests {
    @Test("The ProxyResolver portal (Flatpak) names a proxy with a user name and password: the library's window and the app's view given useDesktopProxy(in:) load through it, nobody asked",
          arguments: Platform.x11)
    func credentialFromTheProxyPortal(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let portal = try ProxyPortal(proxy: "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)", direct: ["localhost"])
        defer { portal.stop() }
        let report = try await proxyPasswordRun(
            httpProxy: "", ["proxy-secret", "view-desktop-proxy"], on: platform, through: proxy, environment: portal.environment)
        #expect(report[.desktopProxyApplied] == true)
        #expect(report[.outcome.prefixed(by: "window.")] == "success", "\(report[.errorMessage.prefixed(by: "window.")] ?? "")")
        #expect(report[.outcome.prefixed(by: "view.")] == "success", "\(report[.errorMessage.prefixed(by: "view.")] ?? "")")
        #expect(report[.proxyQuestions] == [], "nobody asked: the portal's URI's credential answered")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-window") && carried.contains("GET /authorize-view"), "\(carried)")
        #expect(portal.lookups.contains("https://login.example.com/"), "the portal was asked: \(portal.lookups)")
    }
}

/// A load WebKit cancels before anything is shown, with nothing to replace it: a network session's
/// proxy settings changing under a pending request (the app's here; the library's window met it
/// when its own settings reached WebKit's network process after the page's request). The session
/// loads the authorization page again once, and never waits for ever.
extension EmbeddedWebviewProviderTests {
    @Test("The sign-in page's load aborted by a proxy change before anything showed: loaded again once, the sign-in succeeds; aborted twice: network, no hang",
          arguments: Platform.x11)
    func loadCancelledUnreplaced(_ platform: Platform) async throws {
        let once = try await ScenarioRunner.run(
            EmbeddedScenario.loadCancelledUnreplaced, in: platform.toolkit.program, arguments: ["once"], display: platform.display)
        #expect(once[.outcome] == "success", "\(once[.errorMessage] ?? "")")
        #expect(once[.code] == "again")
        #expect(once[.authorizeRequests] == 2, "the page was requested again after the abort")
        let twice = try await ScenarioRunner.run(
            EmbeddedScenario.loadCancelledUnreplaced, in: platform.toolkit.program, arguments: ["twice"], display: platform.display)
        #expect(twice[.outcome] == "network", "\(twice[.errorMessage] ?? "")")
        #expect((twice[.errorMessage] ?? "").contains("cancelled twice before anything was shown"), "\(twice[.errorMessage] ?? "")")
        #expect(twice[.authorizeRequests] == 2, "loaded again once only")
    }
}

extension EmbeddedWebviewProviderTests {
    @Test("The sign-in page's connection dropped under its request before anything showed: tried again once, the sign-in succeeds; dropped every time: network after one more try",
          arguments: Platform.x11)
    func connectionDroppedBeforeAnythingShowed(_ platform: Platform) async throws {
        for mode in ["window", "view"] {
            let once = try await ScenarioRunner.run(
                EmbeddedScenario.connectionDropped, in: platform.toolkit.program, arguments: [mode, "once"], display: platform.display)
            #expect(once[.outcome] == "success", "\(mode): \(once[.errorMessage] ?? "")")
            #expect(once[.code] == "again", "\(mode)")
            #expect(once[.authorizeRequests] == 2, "\(mode): the page was requested again after the dropped connection")
            // The view's first load did fail (the session took care of it, so only an emission hook sees it).
            #expect(once[.viewLoadFailures]?.contains { $0.contains("/authorize") && $0.contains("Connection terminated unexpectedly") } == true,
                    "\(mode): \(once[.viewLoadFailures] ?? [])")
            let always = try await ScenarioRunner.run(
                EmbeddedScenario.connectionDropped, in: platform.toolkit.program, arguments: [mode, "always"], display: platform.display)
            #expect(always[.outcome] == "network", "\(mode): \(always[.errorMessage] ?? "")")
            #expect((always[.errorMessage] ?? "").contains("Connection terminated unexpectedly"), "\(mode): \(always[.errorMessage] ?? "")")
            #expect(always[.authorizeRequests] == 2, "\(mode): tried again once only")
        }
    }
}
