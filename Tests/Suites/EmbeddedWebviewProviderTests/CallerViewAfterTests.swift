import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The caller's view is the app's the moment the `await` returns (issue 17; issue 27, item 2): the
/// app loads its own page in the same continuation (or in the completion handler), at once or after
/// a `Task.yield()`, by `load_uri`, `load_html` or `load_bytes`, or loads nothing, after a success, a
/// failure or a cancel, while the ended sign-in page keeps trying the redirect URI from its own
/// timer. Emission hooks on the view's `decide-policy` and `load-changed` (as an app could install)
/// see every navigation: after the resume only the app's. When the caller resumes no handler of the
/// library is left and the view's `uri` is `""`; the app's page is what the view shows a second and
/// two seconds later, its script ran, and nothing reached the redirect URI.
@Suite("A caller's view after the session: the app's first navigation wins", .serialized, .desktop)
struct CallerViewAfterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let outcome: String
        let api: String
        let load: String
        let when: String
        var testDescription: String { "\(outcome), \(api), load_\(load) \(when == "yield" ? "after a yield" : "at once")" }
    }

    /// Every outcome with every load at once and after a yield, through `await`; the completion
    /// handler for some; an app that loads nothing after each outcome.
    static let cases: [Case] =
        ["success", "oauth-error", "cancel", "task-cancel"].flatMap { outcome in
            ["uri", "html", "bytes"].flatMap { load in ["now", "yield"].map { Case(outcome: outcome, api: "async", load: load, when: $0) } }
                + [Case(outcome: outcome, api: "async", load: "none", when: "now")]
        } + [
            Case(outcome: "success", api: "completion", load: "html", when: "now"),
            Case(outcome: "oauth-error", api: "completion", load: "uri", when: "yield"),
            Case(outcome: "cancel", api: "completion", load: "bytes", when: "now"),
        ]

    /// The cases that run on Wayland too (all run on X11).
    static let wayland: [Case] = cases.filter { $0.when == "now" && ($0.load == "uri" || $0.load == "none") }

    @Test("After the await: no handler, uri \"\", and only the app's navigation; its page is shown 1 s and 2 s later", arguments: Platform.x11, cases)
    func appPageWins(_ platform: Platform, _ setup: Case) async throws {
        try await Self.check(platform, setup)
    }

    @Test("The same on Wayland", arguments: Platform.wayland, wayland)
    func appPageWinsOnWayland(_ platform: Platform, _ setup: Case) async throws {
        try await Self.check(platform, setup)
    }

    static func check(_ platform: Platform, _ setup: Case) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.appAfter, setup.outcome, setup.api, setup.load, setup.when, on: platform)
        #expect(report[.error] == nil, "\(report[.error] ?? "")")
        #expect(report[.outcome] == (setup.outcome == "success" ? "success" : "failure"))
        #expect(report[.handlersAtResume] == 0, "a handler of the library's was still on the view when the caller resumed")
        #expect(report[.uriAtResume] == "", "the view's uri when the caller resumed")
        #expect(report[.isLoadingAtResume] == false)
        let appURL = try #require(report[.appURL])
        let after = report[.viewLoadsAfterResume] ?? []
        if setup.load == "none" {
            #expect(after == [], "the view was navigated after the caller resumed")
        } else {
            let foreign = after.filter { !$0.hasSuffix(" " + appURL) }
            #expect(foreign == [], "navigations or loads the app did not start, after it resumed: \(after)")
            #expect(after.first == "navigation \(appURL)" || setup.load != "uri", "the app's load is the first navigation: \(after)")
        }
        for moment in ["1s", "2s"] {
            if setup.load == "none" {
                #expect(report[.uri.suffixed(by: moment)] == "", "at \(moment)")
            } else {
                #expect(report[.uri.suffixed(by: moment)] == appURL, "at \(moment)")
                #expect(report[.title.suffixed(by: moment)] == "App page, script ran", "at \(moment): the app's page and its script")
            }
            #expect(report[.handlersLeft.suffixed(by: moment)] == 0, "at \(moment)")
        }
        #expect(report[.redirectPortHits] == 0, "the ended page never reached the redirect URI")
        #expect(report[.terminalCount] == 1)
        if setup.load == "uri" { #expect(report[.appRequests] == 1) }
    }
}

/// The sign-in pages leave the caller view's history when the session ends (issue 41, item 7):
/// the view's back/forward list is the one it had before the sign-in, so after the app's own page
/// "back" reaches the app's page from before (or, in a view that had none, a blank page), never
/// the authorization page, which would sign in again by itself and go to the redirect URI.
@Suite("A caller's view after the session: its history is the app's", .serialized, .desktop)
struct CallerViewHistoryTests {
    @Test("The back/forward list is the app's: back after the app's page goes to its page from before the sign-in, or to a blank page",
          arguments: Platform.x11, [("success", "start"), ("success", "fresh"), ("cancel", "start"), ("cancel", "fresh")])
    func signInPagesLeaveTheHistory(_ platform: Platform, _ setup: (outcome: String, before: String)) async throws {
        try await Self.check(platform, setup)
    }

    @Test("The same on Wayland", arguments: Platform.wayland, [("success", "start"), ("cancel", "fresh")])
    func signInPagesLeaveTheHistoryOnWayland(_ platform: Platform, _ setup: (outcome: String, before: String)) async throws {
        try await Self.check(platform, setup)
    }

    static func check(_ platform: Platform, _ setup: (outcome: String, before: String)) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.appAfterHistory, setup.outcome, setup.before, on: platform)
        #expect(report[.error] == nil, "\(report[.error] ?? "")")
        #expect(report[.outcome] == (setup.outcome == "success" ? "success" : "failure"))
        let appURL = try #require(report[.appURL])
        let start = appURL.replacingOccurrences(of: "/app", with: "/start")
        let atResume = report[.historyAtResume] ?? ["none"]
        let afterAppPage = report[.historyAfterAppPage] ?? ["none"]
        if setup.before == "start" {
            #expect(atResume == ["current \(start)"], "the list the app had before the sign-in")
            #expect(afterAppPage == [start, "current \(appURL)"], "the app's two pages, nothing between")
            #expect(report[.uriAfterBack] == start, "back reaches the app's page from before")
            #expect(report[.titleAfterBack] == "Start page, script ran")
        } else {
            #expect(atResume == ["current about:blank"], "a view that had no history has a blank page in place of the sign-in's")
            #expect(afterAppPage == ["about:blank", "current \(appURL)"])
            #expect(report[.uriAfterBack] == "about:blank", "back shows an empty page")
        }
        #expect(report[.authorizeRequests] == 1, "the authorization page was never loaded again")
        #expect(report[.redirectPortHits] == 0, "nothing reached the redirect URI")
    }
}
