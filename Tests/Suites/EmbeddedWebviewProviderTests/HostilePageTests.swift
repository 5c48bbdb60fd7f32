import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// What real pages, the app and other local processes do to an embedded session (issue 8), in
/// the library's own window and in a caller's view. Each page does what it does by itself (a
/// timer, its own script); the test only cancels. A listener on the redirect port counts every
/// request: the code must never reach it.
@Suite("Embedded sign-in against hostile pages", .serialized, .desktop)
struct HostilePageTests {
    static let modes = ["window", "view"]

    static func page(_ mode: String, _ kind: String, on platform: Platform) async throws -> ScenarioReport {
        try await EmbeddedWebviewProviderTests.scenario(.page, mode, kind, on: platform)
    }

    // MARK: 1. Popups

    @Test(
        "A window a page opens by itself (timer, script-clicked target=_blank) to the redirect URI ends the session with success",
        arguments: Platform.everywhere, product(modes, ["popup-timer-redirect", "blank-click-redirect"]))
    func popupToRedirect(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let report = try await Self.page(page.mode, page.kind, on: platform)
        #expect(report[.pageEndedSession] == true, "the page's own popup never reached the provider")
        #expect(report[.outcome] == "success")
        #expect(report[.redirectPortHits] == 0)
        #expect(report[.libraryToplevelsAfter] == 0)
        #expect(report[.handlersLeft] == 0)
    }

    @Test(
        "A window a page opens by itself to a web page loads in the same view, no new window",
        arguments: Platform.standard, product(modes, ["popup-timer-page", "blank-click-page"]))
    func popupToPage(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let mode = page.mode
        let report = try await Self.page(mode, page.kind, on: platform)
        #expect(report[.wentOn] == true)
        #expect(report[.uriWhileGoingOn]?.hasSuffix("/page2") == true)
        #expect(report[.page2Requests] == 1)
        #expect(report[.endedWhileGoingOn] == false)
        #expect(report[.libraryToplevelsDuring] == (mode == "window" ? 1 : 0), "no window besides the sign-in window")
        #expect(report[.outcome] == "canceled")
        #expect(report[.redirectPortHits] == 0)
    }

    @Test("A caller's popup setting is on for the session and restored afterwards (false stays false)", arguments: Platform.standard)
    func callerPopupSettingRestoredFalse(_ platform: Platform) async throws {
        let report = try await Self.page("view", "popup-timer-page", on: platform)
        #expect(report[.canOpenWindowsBefore] == false)
        #expect(report[.canOpenWindowsDuring] == true)
        #expect(report[.canOpenWindowsAfter] == false)
    }

    @Test("A caller that already allows popups keeps its setting (true stays true)", arguments: Platform.standard)
    func callerPopupSettingRestoredTrue(_ platform: Platform) async throws {
        let report = try await Self.page("view", "caller-allows-popups-redirect", on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.canOpenWindowsBefore] == true)
        #expect(report[.canOpenWindowsAfter] == true)
        #expect(report[.redirectPortHits] == 0)
    }

    // MARK: 2. The page after the end

    @Test(
        "A page that navigates (or opens a window) to the redirect URI after a cancel or a timeout never delivers the code",
        arguments: Platform.standard, product(modes, ["late-nav-cancel", "late-nav-timeout", "late-popup-cancel"]))
    func pageAfterTheEnd(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let (mode, kind) = page
        let report = try await Self.page(mode, kind, on: platform)
        #expect(report[.outcome] == (kind == "late-nav-timeout" ? "timedOut" : "canceled"))
        #expect(report[.redirectPortHits] == 0, "the code reached the network after the session ended")
        #expect(report[.terminalCount] == 1)
        #expect(report[.handlersLeft] == 0)
        if mode == "view" {
            #expect(report[.callerViewURIAfter] == "", "the view's events: \(report[.callerViewEvents] ?? [])")
        }
    }

    @Test("A caller that destroys its view mid-session ends the session with canceled, once, and the slot is free", arguments: Platform.standard)
    func callerDestroysView(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.outcome, "view", "view-destroyed", on: platform)
        #expect(report[.outcome] == "canceled")
        #expect(report[.errorMessage]?.contains("destroyed") == true)
        #expect(report[.terminalCount] == 1)
        #expect(report[.terminalLast] == true)
        #expect(report[.slotFree] == true)
        #expect(report[.handlersOnView] == 0, "a destroyed view keeps no handler")
        #expect(report[.callerViewAlive] == false, "the provider let go of the view the app let go of")
        #expect(report[.redirectPortHits] == 0)
    }

    // MARK: 12. form_post

    @Test(
        "response_mode=form_post ends with unsupportedResponseMode; the POST never reaches the network",
        arguments: Platform.standard, modes)
    func formPost(_ platform: Platform, mode: String) async throws {
        let report = try await Self.page(mode, "form-post", on: platform)
        #expect(report[.outcome] == "unsupportedResponseMode")
        #expect(report[.errorMessage]?.contains("response_mode=query") == true)
        #expect(report[.redirectPortHits] == 0)
        #expect(report[.terminalCount] == 1)
    }

    // MARK: The page suite

    /// What each page must lead to: the outcome, and whether the session went on past the page.
    static let suite: [(kind: String, outcome: String, goesOn: Bool, portHits: Int)] = [
        ("meta-refresh", "success", false, 0),
        // The query names the redirect URI; the page is not the redirect.
        ("interstitial", "canceled", true, 0),
        // Siblings of the redirect path load (one request to the sibling) and do not end the session.
        ("sibling", "canceled", true, 1),
        ("dot-segment", "canceled", true, 1),
        // Decided: a frame's navigation to the redirect URI is the redirect (WebKit does not say
        // which frame navigates); it ends the session and never reaches the network.
        ("iframe", "success", false, 0),
        ("foreign-scheme", "canceled", false, 0),
        ("slow-cancel", "canceled", false, 0),
        ("tls", "tls", false, 0),
    ]

    @Test(
        "Page suite: every page ends as it should, and the code never reaches the network",
        arguments: Platform.standard, product(modes, suite.map(\.kind)))
    func pageSuite(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let kind = page.kind
        let expected = try #require(Self.suite.first { $0.kind == kind })
        let report = try await Self.page(page.mode, kind, on: platform)
        #expect(report[.outcome] == expected.outcome, "\(report[.errorMessage] ?? "")")
        #expect(report[.callbackHits] == 0)
        #expect(report[.redirectPortHits] == expected.portHits)
        #expect(report[.terminalCount] == 1)
        #expect(report[.handlersLeft] == 0)
        #expect(report[.libraryToplevelsAfter] == 0)
        if expected.goesOn {
            #expect(report[.wentOn] == true)
            #expect(report[.endedWhileGoingOn] == false)
        }
        if kind == "foreign-scheme" {
            #expect(report[.endedWhileGoingOn] == false)
            #expect(report[.uriWhileGoingOn]?.hasSuffix("/authorize") == true, "the page stays where it is")
        }
    }

    // MARK: 9. Private data

    @Test(
        "Persistent data under umask 000: every folder 0700 and file 0600 after a session that set a cookie (existing 0755 folders tightened)",
        arguments: Platform.standard, ["new", "existing"])
    func privateData(_ platform: Platform, folders: String) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.privateData, folders, on: platform)
        #expect(report[.outcome] == "success")
        #expect(report[.cookieFileExists] == true)
        #expect((report[.entries] ?? []).count > 4, "the walk saw WebKit's files")
        #expect(report[.looseEntries] == [], "group or other bits: \(report[.looseEntries] ?? [])")
    }
}
