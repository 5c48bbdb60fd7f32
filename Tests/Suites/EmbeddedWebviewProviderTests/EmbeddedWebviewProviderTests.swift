import Foundation
import ScenarioSupport
import Testing

/// Real WebKitGTK sign-ins, each in its own process running a GLib main loop (EmbeddedScenariosGTK3
/// for GTK 3, EmbeddedScenariosGTK4 for GTK 4: the same scenarios), against real HTTP(S) servers
/// on 127.0.0.1. Every test runs against both providers (``Platform``). Needs a display: run
/// under `xvfb-run -a`; the Wayland runs start a private headless Weston each.
/// Serialized: each scenario starts WebKit processes, and the machine is small.
@Suite(.serialized)
struct EmbeddedWebviewProviderTests {
    /// Runs a scenario of `platform`'s toolkit with its own XDG data and cache folders
    /// (`dataHome` to share one between runs), on the X display the tests run with or on a
    /// Wayland compositor of its own; expects GTK to have run on that display.
    static func scenario(
        _ name: String, _ arguments: String..., on platform: Platform, dataHome: URL? = nil
    ) async throws -> ScenarioReport {
        let home = dataHome ?? temporaryFolder()
        let report = try await ScenarioRunner.run(
            platform.toolkit.program, name, arguments: arguments,
            environment: [
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            ],
            display: platform.display)
        #expect(report.string("gdkDisplay") == platform.gdkDisplayType, "GTK ran on another display than asked")
        return report
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("wvh-embedded-\(UUID().uuidString)")
    }

    /// Success notifications: loads first, `didComplete` last and only once, all on the main thread.
    static func expectSuccessOrder(_ report: ScenarioReport, prefix: String = "") {
        let names = report.strings(prefix + "eventNames") ?? []
        #expect(names.first == "didStartLoad")
        #expect(names.last == "didComplete")
        #expect(names.contains("didFinishLoad"))
        if let finish = names.firstIndex(of: "didFinishLoad"), let start = names.firstIndex(of: "didStartLoad") {
            #expect(start < finish)
        }
        #expect(names.filter { $0 == "didComplete" || $0 == "didFail" }.count == 1)
        #expect(report.bool(prefix + "allOnMainThread") == true)
        #expect(report.int(prefix + "resumeCount") == 1)
    }

    @Test(
        "A script-posted login form, then a 302 to the redirect URI: code and state come back, the callback never reaches the network",
        arguments: Platform.everywhere)
    func javaScriptLogin(_ platform: Platform) async throws {
        let report = try await Self.scenario("login", on: platform)
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "abc123")
        #expect(report.string("state") == "xyz")
        #expect(report.int("loginPosts") == 1)
        #expect(report.string("loginBody") == "user=alice&password=secret")
        #expect(report.int("callbackRequests") == 0)
        Self.expectSuccessOrder(report)
    }

    @Test("The library-owned window: titled, sized, modal and transient for the parent; destroyed at the end", arguments: Platform.everywhere)
    func libraryOwnedWindow(_ platform: Platform) async throws {
        let report = try await Self.scenario("login", on: platform)
        #expect(report.string("windowTitle") == "Sign in to Test IdP")
        #expect(report.string("windowSubtitle") == "127.0.0.1:\(report.int("idpPort") ?? -1) (not encrypted)",
                "the header bar names the page's host, since the view has no address bar")
        #expect(report.int("windowDefaultWidth") == 480)
        #expect(report.int("windowDefaultHeight") == 560)
        #expect(report.bool("windowModal") == true)
        #expect(report.bool("windowTransientForParent") == true)
        // GTK 3 places the window itself, centred on its parent. GTK 4 has no window position API
        // (the compositor places a modal transient window), and Wayland tells no client where its
        // windows are: there, modal and transient for the parent (above) is all a client can ask.
        if platform.toolkit == .gtk3 && platform.display == .x11 {
            #expect(report.int("windowCentreOffset") == 0, "the window is centred on its parent")
        } else {
            #expect(report.int("windowCentreOffset") == nil)
        }
        #expect(report.bool("windowVisible") == true)
        #expect(report.int("visibleToplevelsDuring") == 2)
        #expect(report.bool("windowFinalized") == true)
        #expect(report.int("visibleToplevelsAfter") == 1)
    }

    @Test("A callback with malformed percent-encoding ends the session with invalidResponse, never reaching the network", arguments: Platform.standard)
    func malformedCallback(_ platform: Platform) async throws {
        let report = try await Self.scenario("redirect", "malformed", on: platform)
        #expect(report.string("outcome") == "invalidResponse")
        #expect(report.int("callbackRequests") == 0)
        #expect(report.int("terminalCount") == 1)
    }

    @Test(
        "A server that redirects at once to the redirect URI: success in the documented order, the load that never finished ends with didFinishLoad",
        arguments: Platform.standard)
    func directServerRedirect(_ platform: Platform) async throws {
        let report = try await Self.scenario("redirect", "direct", on: platform)
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "direct-code")
        #expect(report.int("callbackRequests") == 0)
        #expect(report.strings("eventNames") == ["didStartLoad", "didFinishLoad", "didComplete"])
        Self.expectSuccessOrder(report)
    }

    @Test(
        "Client-side redirects end the session; a lookalike URL carrying redirect_uri= does not",
        arguments: Platform.standard, ["meta", "replace", "query"])
    func clientSideRedirects(_ platform: Platform, kind: String) async throws {
        let report = try await Self.scenario("redirect", kind, on: platform)
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "\(kind)-code")
        #expect(report.int("callbackRequests") == 0)
        Self.expectSuccessOrder(report)
        if kind == "query" {
            // Same host and path as the redirect URI, another port, redirect_uri= in the query: loaded, not matched.
            #expect(report.int("lookalikeRequests") == 1)
            #expect(report.string("lookalikeQuery")?.contains("redirect_uri=") == true)
        }
    }

    @Test(
        "target=_blank and window.open open in the same view; an allow-listed custom scheme and a broker URI are handed on, not loaded",
        arguments: Platform.standard)
    func newWindowsAndSchemes(_ platform: Platform) async throws {
        let report = try await Self.scenario("new-windows", on: platform)
        #expect(report.bool("blankFinished") == true)
        #expect(report.string("uriAfterBlank")?.hasSuffix("/page2") == true)
        #expect(report.int("page2Requests") == 1)
        #expect(report.bool("openFinished") == true)
        #expect(report.string("uriAfterOpen")?.hasSuffix("/page3") == true)
        #expect(report.int("page3Requests") == 1)
        #expect(report.int("maxVisibleToplevels") == 1)
        // The custom scheme was handed on and reported finished; the view stayed on page three.
        #expect(report.bool("customReported") == true)
        #expect(report.string("uriAfterCustom")?.hasSuffix("/page3") == true)
        #expect(report.bool("brokerReported") == true)
        #expect(report.string("uriAfterBroker")?.hasSuffix("/page3") == true)
        let events = report.strings("events") ?? []
        #expect(!events.contains { $0.hasPrefix("didStartLoad wvh-test-scheme:") || $0.hasPrefix("didStartLoad msauth:") })
        if let broker = events.firstIndex(of: "willSwitchToBrokerApp msauth://broker/request?x=1"),
            let finished = events.firstIndex(of: "didFinishLoad msauth://broker/request?x=1")
        {
            #expect(broker < finished)
        } else {
            Issue.record("no willSwitchToBrokerApp / didFinishLoad pair for the broker URI: \(events)")
        }
        #expect(report.string("outcome") == "success")
        #expect(report.int("callbackRequests") == 0)
        Self.expectSuccessOrder(report)
    }

    @Test(
        "Each failure ends the session with exactly one outcome and one didFail",
        arguments: Platform.everywhere, [
            ("close", "userCanceled"), ("escape", "userCanceled"), ("cancel", "canceled"),
            ("unreachable", "network"), ("tls", "tls"), ("web-process", "webProcessTerminated"),
        ])
    func failures(_ platform: Platform, failure: (kind: String, code: String)) async throws {
        let (kind, code) = failure
        let report = try await Self.scenario("failure", kind, on: platform)
        #expect(report.string("outcome") == code)
        #expect(report.int("terminalCount") == 1)
        #expect(report.int("failCount") == 1)
        #expect(report.int("resumeCount") == 1)
        #expect(report.strings("eventNames")?.last == "didFail")
        #expect(report.bool("allOnMainThread") == true)
        #expect(report.int("visibleToplevelsAfter") == 1)  // only the parent app window is left
        #expect(report.int("callbackRequests") == 0)
        if ["close", "escape", "cancel", "web-process"].contains(kind) {
            #expect(report.bool("windowFinalized") == true)
        }
        if kind == "tls" {
            #expect(report.int("tlsServerRequests") == 0)  // fails closed: no request was ever sent
        }
    }

    @Test("The app destroys the parent window mid-session: the sign-in window goes with it, and the session ends userCanceled, once", arguments: Platform.standard)
    func parentDestroyed(_ platform: Platform) async throws {
        let report = try await Self.scenario("failure", "parent-destroyed", on: platform)
        #expect(report.string("outcome") == "userCanceled")
        #expect(report.int("terminalCount") == 1)
        #expect(report.int("resumeCount") == 1)
        #expect(report.strings("eventNames")?.last == "didFail")
        #expect(report.bool("windowFinalized") == true)
        #expect(report.int("visibleToplevelsAfter") == 0)
        #expect(report.int("callbackRequests") == 0)
    }

    @Test("A second session while one runs fails at once; the first still completes", arguments: Platform.standard)
    func secondSession(_ platform: Platform) async throws {
        let report = try await Self.scenario("second-session", on: platform)
        #expect(report.string("second.outcome") == "sessionAlreadyInProgress")
        #expect(report.int("second.terminalCount") == 1)
        #expect(report.strings("second.eventNames") == ["didFail"])
        #expect(report.int("toplevelsAfterSecond") == report.int("toplevelsBeforeSecond"))
        #expect(report.int("authorizeRequests") == 1)
        #expect(report.string("first.outcome") == "success")
        #expect(report.string("first.code") == "first")
        Self.expectSuccessOrder(report, prefix: "first.")
    }

    @Test(
        "A caller-supplied view is left alive, in place, unchanged and with no handler left behind",
        arguments: Platform.everywhere, ["success", "failure", "cancel"])
    func callerSuppliedView(_ platform: Platform, kind: String) async throws {
        let report = try await Self.scenario("custom-view", kind, on: platform)
        #expect(report.string("outcome") == ["success": "success", "failure": "network", "cancel": "canceled"][kind])
        #expect(report.string("provider") == "embedded")
        #expect(report.int("terminalCount") == 1)
        // The session did attach handlers, and removed every one of them.
        #expect(report.int("handlersDuring")! > report.int("handlersBefore")!)
        #expect(report.int("handlersAfter") == report.int("handlersBefore"))
        for key in ["parentIsBox", "visible", "mapped"] {
            #expect(report.bool(key + "After") == true, "\(key)After")
        }
        #expect(report.bool("inDestructionAfter") == false)
        #expect(report.int("widthAfter") == report.int("widthBefore"))
        #expect(report.int("heightAfter") == report.int("heightBefore"))
        // Blanked at the end, whatever the outcome: nothing the page does later can deliver the code.
        #expect(report.string("uriAfter") == "about:blank")
        #expect(report.bool("isLoadingAfter") == false)
        #expect(report.bool("notificationsCarryView") == true)
        #expect(report.int("visibleToplevelsAfter") == 1)  // no window of the library's
        #expect(report.int("callbackRequests") == 0)
        if kind == "success" { Self.expectSuccessOrder(report) }
    }

    @Test(
        "A caller's view showing its own HTML (load_html, no base URI) still reports didStartLoad ... didFinishLoad ... didComplete",
        arguments: Platform.standard, ["html", "html-at-once"])
    func callerViewAfterOwnHTML(_ platform: Platform, start: String) async throws {
        // WebKitGTK 2.50 can report the URI "" at the start of the session's load in such a view:
        // the session's first didStartLoad (and so its didFinishLoad) used to be lost.
        let report = try await Self.scenario("custom-view", "success", start, on: platform)
        #expect(report.string("outcome") == "success")
        #expect(report.int("handlersAfter") == report.int("handlersBefore"))
        #expect(report.string("uriAfter") == "about:blank")
        Self.expectSuccessOrder(report)
        #expect(report.strings("events")?.first?.contains("/authorize") == true, "didStartLoad names the authorization URL")
    }

    @Test("A customWebview with .authenticationSession is invalidParameters, and the view is untouched", arguments: Platform.standard)
    func customViewWithAuthenticationSession(_ platform: Platform) async throws {
        let report = try await Self.scenario("custom-view-authentication-session", on: platform)
        #expect(report.string("outcome") == "invalidParameters")
        #expect(report.string("errorMessage")?.contains("customWebview") == true)
        #expect(report.int("handlersAfter") == report.int("handlersBefore"))
        #expect(report.int("visibleToplevels") == 0)
    }

    @Test(
        "Persistent mode: a cookie from session one is sent in session two, stored under XDG_DATA_HOME, and gone after sign-out",
        arguments: Platform.standard)
    func persistentCookies(_ platform: Platform) async throws {
        let report = try await Self.scenario("cookies", "persistent", on: platform)
        #expect(report.string("session1.outcome") == "success")
        #expect(report.string("session2.outcome") == "success")
        #expect(report.string("cookieInSecond") == "sso=alice")
        #expect(report.bool("cookieFileExists") == true)
        #expect(report.string("session3.outcome") == "success")
        #expect(report.string("cookieAfterSignOut") == "")
        #expect(report.int("callbackRequests") == 0)
    }

    @Test("Ephemeral mode: a cookie from session one is not sent in session two, and nothing is written to disk", arguments: Platform.standard)
    func ephemeralCookies(_ platform: Platform) async throws {
        let report = try await Self.scenario("cookies", "ephemeral", on: platform)
        #expect(report.string("session1.outcome") == "success")
        #expect(report.string("session2.outcome") == "success")
        #expect(report.int("checkRequests") == 1)
        #expect(report.string("cookieInSecond") == "")
        #expect(report.bool("dataFolderExists") == false)
    }

    @Test("Persistent mode survives the process: a second run of the app sends the first run's cookie", arguments: Platform.standard)
    func persistentCookiesAcrossProcesses(_ platform: Platform) async throws {
        let home = Self.temporaryFolder()
        let first = try await Self.scenario("cookie-step", "set", on: platform, dataHome: home)
        #expect(first.string("outcome") == "success")
        #expect(first.string("cookieSent") == "")
        let second = try await Self.scenario("cookie-step", "check", on: platform, dataHome: home)
        #expect(second.string("outcome") == "success")
        #expect(second.string("cookieSent") == "sso=bob")
        let fresh = try await Self.scenario("cookie-step", "check", on: platform)
        #expect(fresh.string("cookieSent") == "")
    }

    @Test("The load indicator shows on a slow page and hides once it loaded", arguments: Platform.standard)
    func loadIndicator(_ platform: Platform) async throws {
        let report = try await Self.scenario("slow-page", on: platform)
        #expect(report.bool("loadingWhileSlow") == true)
        #expect(report.bool("indicatorVisibleWhileSlow") == true)
        #expect(report.bool("finished") == true)
        #expect(report.bool("indicatorVisibleAfterLoad") == false)
        #expect(report.string("outcome") == "canceled")
    }

    @Test(
        "The provider keeps the session contract (WebviewHostTestKit's conformance suite)",
        arguments: Platform.everywhere, ["window", "custom-view"])
    func conformance(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario("conformance", mode, on: platform)
        #expect(report.strings("failures") == [], "\(report.strings("failures") ?? [])")
        #expect(report.int("callbackRequests") == 0, "the code never reached the network")
    }

    @Test("A broker URI (msauth://) goes to a registered broker provider, which completes the session", arguments: Platform.standard)
    func brokerTakesOver(_ platform: Platform) async throws {
        let report = try await Self.scenario("broker", on: platform)
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "from-broker")
        #expect(report.strings("eventNames") == ["didStartLoad", "didFinishLoad", "willSwitchToBrokerApp", "didComplete"])
        #expect(report.strings("brokerCalls") == ["made", "prepared", "presented(msauth://broker/authorize?request=abc)", "dismissed"])
        #expect(report.int("visibleToplevelsAfter") == 1, "the sign-in window was closed when the broker took over")
        #expect(report.int("callbackRequests") == 0)
    }
}
