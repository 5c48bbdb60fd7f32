import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The embedded view hands over to the person's browser what it cannot do (issue 17): pages act
/// from their own timers (a passkey request, a refusal of embedded agents), the person clicks the
/// window's button, the app calls `continueInSystemBrowser()`; the browser is real headless
/// Chromium, the desktop's default, and the sign-in really finishes there.
@Suite("Embedded sign-in handed over to the person's browser (real Chromium)", .serialized, .desktop)
struct HandOverTests {
    struct Run {
        let report: ScenarioReport
        let launches: [String]
        let cleanup: ChromiumDesktop.Cleanup
    }

    static func run(_ mode: String, _ trigger: String, _ policy: String, on platform: Platform) async throws -> Run {
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        // The desktop's own XDG folders (fresh for this run) hold the view's data too.
        let report = try await browser.runScenario(
            EmbeddedScenario.handover, in: platform.toolkit.program, arguments: [mode, trigger, policy], display: platform.display)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        let launches = browser.launchedURLs
        let cleanup = await browser.stop()
        return Run(report: report, launches: launches, cleanup: cleanup)
    }

    /// What every sign-in finished in the browser shows: the browser's request and callback,
    /// `willSwitchToSystemBrowser` between the view's steps and the one terminal event, nothing at
    /// the view's redirect, the view gone or left clean.
    static func expectFinishedInBrowser(_ run: Run, mode: String, reason: String) {
        let report = run.report
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "from-browser")
        #expect(report[.state] == "s-2", "the browser's own request answered")
        #expect(report[.callbackURL]?.hasPrefix("http://127.0.0.1:") == true)
        #expect(report[.callbackURL]?.contains("/browser-callback?") == true)
        #expect(report[.handOverReason] == reason)
        let names = report[.eventNames] ?? []
        #expect(names.first == "didStartLoad", "\(names)")
        #expect(names.filter { $0 == "willSwitchToSystemBrowser" }.count == 1, "\(names)")
        #expect(names.last == "didComplete", "\(names)")
        #expect(report[.terminalCount] == 1)
        let built = report[.built] ?? []
        #expect(built.count == 2, "one request for the view, one for the browser: \(built)")
        #expect(built.last?.hasPrefix("http://127.0.0.1:") == true && built.last?.hasSuffix("/browser-callback") == true)
        #expect(report[.viewCallbackHits] == 0, "nothing of the view reached its redirect")
        #expect(report[.browserAuthorizeRequests] == 1)
        #expect(run.launches.count == 1, "the browser was started once: \(run.launches)")
        #expect(report[.visibleToplevelsAfter] == (mode == "view" ? 1 : 0), "the library's window is gone; the app's stays")
        if mode == "view" { #expect(report[.handlersLeft] == 0) }
        #expect(run.cleanup.isClean, "\(run.cleanup)")
    }

    @Test(
        "Automatic: a passkey request from the page's timer, or a provider refusing embedded views, finishes in Chromium in the same await",
        arguments: Platform.x11, product(["window", "view"], ["webauthn-get", "webauthn-create", "refused-url", "refused-text", "custom-rule"]))
    func automatic(_ platform: Platform, _ page: (mode: String, trigger: String)) async throws {
        let run = try await Self.run(page.mode, page.trigger, "automatic", on: platform)
        Self.expectFinishedInBrowser(run, mode: page.mode, reason: page.trigger.hasPrefix("webauthn") ? "webAuthn" : "embeddedAgentRefused")
        if page.trigger.hasPrefix("webauthn") {
            // The view advertised WebAuthn, with no platform authenticator and no autofill, so the
            // site offered its passkey step.
            #expect(run.report[.reports]?.first == "pkc=true&uvpa=false&conditional=false", "\(run.report[.reports] ?? [])")
        }
    }

    @Test("Automatic on Wayland: a passkey request finishes in Chromium", arguments: Platform.wayland, ["window", "view"])
    func automaticOnWayland(_ platform: Platform, mode: String) async throws {
        let run = try await Self.run(mode, "webauthn-get", "automatic", on: platform)
        Self.expectFinishedInBrowser(run, mode: mode, reason: "webAuthn")
    }

    @Test("The person's \"Continue in your browser\" button in the library's window", arguments: Platform.x11)
    func personsButton(_ platform: Platform) async throws {
        let run = try await Self.run("window", "button", "automatic", on: platform)
        #expect(run.report[.buttonVisible] == true)
        Self.expectFinishedInBrowser(run, mode: "window", reason: "personChose")
    }

    @Test("The app's continueInSystemBrowser(), for its own view and the library's window, even with the policy never",
          arguments: Platform.x11, product(["view", "window"], ["automatic", "never"]))
    func appsCall(_ platform: Platform, _ setup: (mode: String, policy: String)) async throws {
        let run = try await Self.run(setup.mode, "app", setup.policy, on: platform)
        #expect(run.report[.appCallAccepted] == true)
        Self.expectFinishedInBrowser(run, mode: setup.mode, reason: "appRequested")
    }

    @Test("Ask first: the question over the sign-in (continuing is the default); the person's click continues in Chromium",
          arguments: Platform.x11, ["window", "view"])
    func askFirstAccepted(_ platform: Platform, mode: String) async throws {
        let run = try await Self.run(mode, "webauthn-get", "askFirst", on: platform)
        #expect(run.report[.questionShown] == true)
        #expect(run.report[.questionButtons] == ["_Stay here", "Continue in _browser"])
        #expect(run.report[.questionDefault] == "Continue in _browser")
        Self.expectFinishedInBrowser(run, mode: mode, reason: "webAuthn")
    }

    @Test("Ask first, declined: the page's passkey request is refused (NotAllowedError), it offers a password, and the sign-in finishes in the view",
          arguments: Platform.x11)
    func askFirstDeclined(_ platform: Platform) async throws {
        let run = try await Self.run("window", "webauthn-get", "askFirst-decline", on: platform)
        let report = run.report
        #expect(report[.questionShown] == true)
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "from-view")
        #expect(report[.reports]?.contains("webauthn=NotAllowedError") == true, "\(report[.reports] ?? [])")
        #expect(report[.eventNames]?.contains("willSwitchToSystemBrowser") == false)
        #expect(run.launches.isEmpty)
        #expect(run.cleanup.isClean, "\(run.cleanup)")
    }

    @Test("Never, a site that feature-detects: the view does not advertise WebAuthn, the site offers a password, the sign-in finishes in the view",
          arguments: Platform.x11, ["window", "view"])
    func neverFeatureDetecting(_ platform: Platform, mode: String) async throws {
        let run = try await Self.run(mode, "webauthn-get", "never", on: platform)
        let report = run.report
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "from-view")
        // Two fetches the page sends one after the other may arrive in either order.
        #expect(report[.reports]?.sorted() == ["password=1", "pkc=false&uvpa=false&conditional=false"])
        #expect(run.launches.isEmpty)
    }

    @Test("Never, a page that calls WebAuthn anyway or refuses embedded views: systemBrowserRequired with the reason, no browser",
          arguments: Platform.x11, product(["window", "view"], ["webauthn-undetected", "refused-url"]))
    func neverEnds(_ platform: Platform, _ page: (mode: String, trigger: String)) async throws {
        let run = try await Self.run(page.mode, page.trigger, "never", on: platform)
        let report = run.report
        #expect(report[.outcome] == "systemBrowserRequired", "\(report[.errorMessage] ?? "")")
        #expect(report[.errorHandOverReason] == (page.trigger == "refused-url" ? "embeddedAgentRefused" : "webAuthn"))
        #expect(report[.eventNames]?.last == "didFail")
        #expect(report[.eventNames]?.contains("willSwitchToSystemBrowser") == false)
        #expect(report[.viewCallbackHits] == 0)
        #expect(run.launches.isEmpty)
        if page.mode == "view" { #expect(report[.handlersLeft] == 0) }
    }

    @Test("Never: the library's window offers no button", arguments: Platform.x11)
    func neverNoButton(_ platform: Platform) async throws {
        let run = try await Self.run("window", "button", "never", on: platform)
        #expect(run.report[.buttonVisible] == false)
        #expect(run.report[.outcome] == "canceled")
    }
}
