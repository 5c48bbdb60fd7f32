import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Real WebKitGTK sign-ins, each in its own process running a GLib main loop (EmbeddedScenariosGTK3
/// for GTK 3, EmbeddedScenariosGTK4 for GTK 4: the same scenarios), against real HTTP(S) servers
/// on 127.0.0.1. Every test runs against both providers (``Platform``). Needs a display: run
/// under `xvfb-run -a`; the Wayland runs start a private headless Weston each.
/// Serialized: each scenario starts WebKit processes, and the machine is small.
@Suite(.serialized, .desktop)
struct EmbeddedWebviewProviderTests {
    /// Runs a scenario of `platform`'s toolkit (killed `timeout` after its start, past its own
    /// watchdog) with its own XDG data and cache folders
    /// (`dataHome` to share one between runs), on the X display the tests run with or on a
    /// Wayland compositor of its own; expects GTK to have run on that display.
    static func scenario(
        _ name: EmbeddedScenario, _ arguments: String..., on platform: Platform, dataHome: URL? = nil,
        display: DisplayServer? = nil, timeout: Duration = Patience.scaled(.seconds(120))
    ) async throws -> ScenarioReport {
        let home = dataHome ?? temporaryFolder()
        // A folder made here is this run's alone: removed after it (a caller's `dataHome` is the caller's).
        defer { if dataHome == nil { try? FileManager.default.removeItem(at: home) } }
        let report = try await ScenarioRunner.run(
            name, in: platform.toolkit.program, arguments: arguments,
            environment: [
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            ],
            timeout: timeout, display: display ?? platform.display)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        return report
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wvh-embedded-\(UUID().uuidString)")
    }

    /// Success notifications: loads first, `didComplete` last and only once, all on the main thread.
    static func expectSuccessOrder(_ report: ScenarioReport, prefix: String = "") {
        let names = report[.eventNames.prefixed(by: prefix)] ?? []
        #expect(names.first == "didStartLoad")
        #expect(names.last == "didComplete")
        #expect(names.contains("didFinishLoad"))
        if let finish = names.firstIndex(of: "didFinishLoad"), let start = names.firstIndex(of: "didStartLoad") {
            #expect(start < finish)
        }
        #expect(names.filter { $0 == "didComplete" || $0 == "didFail" }.count == 1)
        #expect(report[.allOnMainThread.prefixed(by: prefix)] == true)
        #expect(report[.resumeCount.prefixed(by: prefix)] == 1)
    }

    @Test(
        "A script-posted login form, then a 302 to the redirect URI: code and state come back, the callback never reaches the network",
        arguments: Platform.everywhere)
    func javaScriptLogin(_ platform: Platform) async throws {
        let report = try await Self.scenario(.login, on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "abc123")
        #expect(report[.state] == "xyz")
        #expect(report[.loginPosts] == 1)
        #expect(report[.loginBody] == "user=alice&password=secret")
        #expect(report[.callbackRequests] == 0)
        Self.expectSuccessOrder(report)
    }

    @Test("The library-owned window: titled, sized, modal and transient for the parent; destroyed at the end", arguments: Platform.everywhere)
    func libraryOwnedWindow(_ platform: Platform) async throws {
        let report = try await Self.scenario(.login, on: platform)
        #expect(report[.windowTitle] == "Sign in to Test IdP")
        #expect(report[.windowSubtitle] == "127.0.0.1:\(report[.idpPort] ?? -1) (not encrypted)",
                "the header bar names the page's host, since the view has no address bar")
        #expect(report[.windowDefaultWidth] == 480)
        #expect(report[.windowDefaultHeight] == 560)
        #expect(report[.windowModal] == true)
        #expect(report[.windowTransientForParent] == true)
        // GTK 3 places the window itself, centred on its parent. GTK 4 has no window position API
        // (the compositor places a modal transient window), and Wayland tells no client where its
        // windows are: there, modal and transient for the parent (above) is all a client can ask.
        if platform.toolkit == .gtk3 && platform.display == .x11 {
            #expect(report[.windowCentreOffset] == 0, "the window is centred on its parent")
        } else {
            #expect(report[.windowCentreOffset] == nil)
        }
        #expect(report[.windowVisible] == true)
        #expect(report[.visibleToplevelsDuring] == 2)
        #expect(report[.windowFinalized] == true)
        #expect(report[.visibleToplevelsAfter] == 1)
    }

    @Test("A callback with malformed percent-encoding ends the session with invalidResponse, never reaching the network", arguments: Platform.standard)
    func malformedCallback(_ platform: Platform) async throws {
        let report = try await Self.scenario(.redirect, "malformed", on: platform)
        #expect(report[.outcome] == "invalidResponse")
        #expect(report[.callbackRequests] == 0)
        #expect(report[.terminalCount] == 1)
    }

    @Test(
        "A server that redirects at once to the redirect URI: success in the documented order, the load that never finished ends with didFinishLoad",
        arguments: Platform.standard)
    func directServerRedirect(_ platform: Platform) async throws {
        let report = try await Self.scenario(.redirect, "direct", on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "direct-code")
        #expect(report[.callbackRequests] == 0)
        #expect(report[.eventNames] == ["didStartLoad", "didFinishLoad", "didComplete"])
        Self.expectSuccessOrder(report)
    }

    @Test(
        "Client-side redirects end the session; a lookalike URL carrying redirect_uri= does not",
        arguments: Platform.standard, ["meta", "replace", "query"])
    func clientSideRedirects(_ platform: Platform, kind: String) async throws {
        let report = try await Self.scenario(.redirect, kind, on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "\(kind)-code")
        #expect(report[.callbackRequests] == 0)
        Self.expectSuccessOrder(report)
        if kind == "query" {
            // Same host and path as the redirect URI, another port, redirect_uri= in the query: loaded, not matched.
            #expect(report[.lookalikeRequests] == 1)
            #expect(report[.lookalikeQuery]?.contains("redirect_uri=") == true)
        }
    }

    @Test(
        "target=_blank and window.open open in the same view; an allow-listed custom scheme and a broker URI are handed on, not loaded",
        arguments: Platform.standard)
    func newWindowsAndSchemes(_ platform: Platform) async throws {
        let report = try await Self.scenario(.newWindows, on: platform)
        #expect(report[.blankFinished] == true)
        #expect(report[.uriAfterBlank]?.hasSuffix("/page2") == true)
        #expect(report[.page2Requests] == 1)
        #expect(report[.openFinished] == true)
        #expect(report[.uriAfterOpen]?.hasSuffix("/page3") == true)
        #expect(report[.page3Requests] == 1)
        #expect(report[.maxVisibleToplevels] == 1)
        // The custom scheme was handed on and reported finished; the view stayed on page three.
        #expect(report[.customReported] == true)
        #expect(report[.uriAfterCustom]?.hasSuffix("/page3") == true)
        #expect(report[.brokerReported] == true)
        #expect(report[.uriAfterBroker]?.hasSuffix("/page3") == true)
        let events = report[.events] ?? []
        #expect(!events.contains { $0.hasPrefix("didStartLoad wvh-test-scheme:") || $0.hasPrefix("didStartLoad msauth:") })
        if let broker = events.firstIndex(of: "willSwitchToBrokerApp msauth://broker/request?x=1"),
            let finished = events.firstIndex(of: "didFinishLoad msauth://broker/request?x=1")
        {
            #expect(broker < finished)
        } else {
            Issue.record("no willSwitchToBrokerApp / didFinishLoad pair for the broker URI: \(events)")
        }
        #expect(report[.outcome] == "success")
        #expect(report[.callbackRequests] == 0)
        Self.expectSuccessOrder(report)
    }

    @Test(
        "Each failure ends the session with exactly one outcome and one didFail",
        arguments: Platform.everywhere, [
            ("close", "userCanceled"), ("cancel-button", "userCanceled"), ("escape", "userCanceled"), ("cancel", "canceled"),
            ("unreachable", "network"), ("tls", "tls"), ("web-process", "webProcessTerminated"),
        ])
    func failures(_ platform: Platform, failure: (kind: String, code: String)) async throws {
        let (kind, code) = failure
        let report = try await Self.scenario(.failure, kind, on: platform)
        #expect(report[.outcome] == code)
        #expect(report[.terminalCount] == 1)
        #expect(report[.failCount] == 1)
        #expect(report[.resumeCount] == 1)
        #expect(report[.eventNames]?.last == "didFail")
        #expect(report[.allOnMainThread] == true)
        #expect(report[.visibleToplevelsAfter] == 1)  // only the parent app window is left
        #expect(report[.callbackRequests] == 0)
        if ["close", "cancel-button", "escape", "cancel", "web-process"].contains(kind) {
            #expect(report[.windowFinalized] == true)
            // The header bar's one way out is "Cancel" (a dialog's, with no window controls).
            #expect(report[.windowButtons] == ["_Cancel"])
        }
        if kind == "tls" {
            #expect(report[.tlsServerRequests] == 0)  // fails closed: no request was ever sent
        }
    }

    // A real click lands on whatever window is on top at that point of the screen: on a display
    // of the test's own, none of a test running in parallel. X11 only (XTest, through xdotool).
    @Test("A person's real click on Cancel (an X pointer event, not a signal) ends the session userCanceled, once", arguments: Platform.x11)
    func realClickOnCancel(_ platform: Platform) async throws {
        let report = try await Self.scenario(.failure, "cancel-click", on: platform, display: .privateX11)
        #expect(report[.outcome] == "userCanceled")
        #expect(report[.terminalCount] == 1)
        #expect(report[.resumeCount] == 1)
        #expect(report[.eventNames]?.last == "didFail")
        #expect(report[.windowFinalized] == true)
        #expect(report[.visibleToplevelsAfter] == 1)  // the parent app window stays
        #expect((1...3).contains(report[.clickAttempts] ?? 0), "no \"_Cancel\" to click in the window")
    }

    @Test("The app destroys the parent window mid-session: the sign-in window goes with it, and the session ends userCanceled, once", arguments: Platform.standard)
    func parentDestroyed(_ platform: Platform) async throws {
        let report = try await Self.scenario(.failure, "parent-destroyed", on: platform)
        #expect(report[.outcome] == "userCanceled")
        #expect(report[.terminalCount] == 1)
        #expect(report[.resumeCount] == 1)
        #expect(report[.eventNames]?.last == "didFail")
        #expect(report[.windowFinalized] == true)
        #expect(report[.visibleToplevelsAfter] == 0)
        #expect(report[.callbackRequests] == 0)
    }

    @Test("A second session while one runs fails at once; the first still completes", arguments: Platform.standard)
    func secondSession(_ platform: Platform) async throws {
        let report = try await Self.scenario(.secondSession, on: platform)
        #expect(report[.outcome.prefixed(by: "second.")] == "sessionAlreadyInProgress")
        #expect(report[.terminalCount.prefixed(by: "second.")] == 1)
        #expect(report[.eventNames.prefixed(by: "second.")] == ["didFail"])
        #expect(report[.toplevelsAfterSecond] == report[.toplevelsBeforeSecond])
        #expect(report[.authorizeRequests] == 1)
        #expect(report[.outcome.prefixed(by: "first.")] == "success")
        #expect(report[.code.prefixed(by: "first.")] == "first")
        Self.expectSuccessOrder(report, prefix: "first.")
    }

    @Test(
        "A caller-supplied view is left alive, in place, unchanged and with no handler left behind",
        arguments: Platform.everywhere, ["success", "failure", "cancel"])
    func callerSuppliedView(_ platform: Platform, kind: String) async throws {
        let report = try await Self.scenario(.customView, kind, on: platform)
        #expect(report[.outcome] == ["success": "success", "failure": "network", "cancel": "canceled"][kind])
        #expect(report[.provider] == "embedded")
        #expect(report[.terminalCount] == 1)
        // The session did attach handlers, and removed every one of them.
        #expect(report[.handlersDuring]! > report[.handlersBefore]!)
        #expect(report[.handlersAfter] == report[.handlersBefore])
        for key in [ReportKey<Bool>.parentIsBox, .visible, .mapped] {
            #expect(report[key.suffixed(by: "After")] == true, "\(key.name)After")
        }
        #expect(report[.inDestructionAfter] == false)
        #expect(report[.widthAfter] == report[.widthBefore])
        #expect(report[.heightAfter] == report[.heightBefore])
        // Ended and let go before the caller resumed, whatever the outcome: nothing the page does
        // later can deliver the code, and the library never loads anything in the view again.
        #expect(report[.uriAtResume] == "")
        #expect(report[.handlersAtResume] == 0)
        #expect(report[.uriAfter] == "")
        #expect(report[.isLoadingAfter] == false)
        #expect(report[.notificationsCarryView] == true)
        #expect(report[.visibleToplevelsAfter] == 1)  // no window of the library's
        #expect(report[.callbackRequests] == 0)
        if kind == "success" { Self.expectSuccessOrder(report) }
    }

    @Test(
        "A caller's view showing its own HTML (load_html, no base URI) still reports didStartLoad ... didFinishLoad ... didComplete",
        arguments: Platform.standard, ["html", "html-at-once"])
    func callerViewAfterOwnHTML(_ platform: Platform, start: String) async throws {
        // WebKitGTK 2.50 can report the URI "" at the start of the session's load in such a view:
        // the session's first didStartLoad (and so its didFinishLoad) used to be lost.
        let report = try await Self.scenario(.customView, "success", start, on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.handlersAfter] == report[.handlersBefore])
        #expect(report[.uriAfter] == "")
        Self.expectSuccessOrder(report)
        #expect(report[.events]?.first?.contains("/authorize") == true, "didStartLoad names the authorization URL")
    }

    @Test("A customWebview with .authenticationSession is invalidParameters, and the view is untouched", arguments: Platform.standard)
    func customViewWithAuthenticationSession(_ platform: Platform) async throws {
        let report = try await Self.scenario(.customViewAuthenticationSession, on: platform)
        #expect(report[.outcome] == "invalidParameters")
        #expect(report[.errorMessage]?.contains("customWebview") == true)
        #expect(report[.handlersAfter] == report[.handlersBefore])
        #expect(report[.visibleToplevels] == 0)
    }

    @Test(
        "Persistent mode: a cookie from session one is sent in session two, stored under XDG_DATA_HOME, and gone after sign-out",
        arguments: Platform.standard)
    func persistentCookies(_ platform: Platform) async throws {
        let report = try await Self.scenario(.cookies, "persistent", on: platform)
        #expect(report[.outcome.prefixed(by: "session1.")] == "success")
        #expect(report[.outcome.prefixed(by: "session2.")] == "success")
        #expect(report[.cookieInSecond] == "sso=alice")
        #expect(report[.cookieFileExists] == true)
        #expect(report[.outcome.prefixed(by: "session3.")] == "success")
        #expect(report[.cookieAfterSignOut] == "")
        #expect(report[.callbackRequests] == 0)
    }

    @Test("Ephemeral mode: a cookie from session one is not sent in session two, and nothing is written to disk", arguments: Platform.standard)
    func ephemeralCookies(_ platform: Platform) async throws {
        let report = try await Self.scenario(.cookies, "ephemeral", on: platform)
        #expect(report[.outcome.prefixed(by: "session1.")] == "success")
        #expect(report[.outcome.prefixed(by: "session2.")] == "success")
        #expect(report[.checkRequests] == 1)
        #expect(report[.cookieInSecond] == "")
        #expect(report[.dataFolderExists] == false)
    }

    @Test("Persistent mode survives the process: a second run of the app sends the first run's cookie", arguments: Platform.standard)
    func persistentCookiesAcrossProcesses(_ platform: Platform) async throws {
        let home = Self.temporaryFolder()
        let first = try await Self.scenario(.cookieStep, "set", on: platform, dataHome: home)
        #expect(first[.outcome] == "success")
        #expect(first[.cookieSent] == "")
        let second = try await Self.scenario(.cookieStep, "check", on: platform, dataHome: home)
        #expect(second[.outcome] == "success")
        #expect(second[.cookieSent] == "sso=bob")
        let fresh = try await Self.scenario(.cookieStep, "check", on: platform)
        #expect(fresh[.cookieSent] == "")
    }

    @Test("The load indicator shows on a slow page and hides once it loaded", arguments: Platform.standard)
    func loadIndicator(_ platform: Platform) async throws {
        let report = try await Self.scenario(.slowPage, on: platform)
        #expect(report[.loadingWhileSlow] == true)
        #expect(report[.indicatorVisibleWhileSlow] == true)
        #expect(report[.finished] == true)
        #expect(report[.indicatorVisibleAfterLoad] == false)
        #expect(report[.outcome] == "canceled")
    }

    @Test(
        "The provider keeps the session contract (WebviewHostTestKit's conformance suite)",
        arguments: Platform.everywhere, ["window", "custom-view"])
    func conformance(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.conformance, mode, on: platform)
        #expect(report[.failures] == [], "\(report[.failures] ?? [])")
        #expect(report[.callbackRequests] == 0, "the code never reached the network")
    }

    @Test("A broker URI (msauth://) goes to a registered broker provider, which completes the session", arguments: Platform.standard)
    func brokerTakesOver(_ platform: Platform) async throws {
        let report = try await Self.scenario(.broker, on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "from-broker")
        #expect(report[.eventNames] == ["didStartLoad", "didFinishLoad", "willSwitchToBrokerApp", "didComplete"])
        #expect(report[.brokerCalls] == ["made", "prepared", "presented(msauth://broker/authorize?request=abc)", "dismissed"])
        #expect(report[.visibleToplevelsAfter] == 1, "the sign-in window was closed when the broker took over")
        #expect(report[.callbackRequests] == 0)
    }
}
