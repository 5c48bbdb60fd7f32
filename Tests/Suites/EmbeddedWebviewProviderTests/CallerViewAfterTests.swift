import Foundation
import ScenarioSupport
import Testing

/// The caller's view is the app's the moment the `await` returns (issue 17): the app loads its own
/// page in the same continuation (or in the completion handler), after a success, a failure or a
/// cancel, while the ended sign-in page keeps trying the redirect URI from its own timer. The
/// app's page is what the view shows a second and six seconds later, its script ran, no handler
/// of the library is left, and nothing reached the redirect URI.
@Suite("A caller's view after the session: the app's first navigation wins", .serialized)
struct CallerViewAfterTests {
    static let cases: [(outcome: String, api: String, load: String)] = [
        ("success", "async", "uri"), ("success", "completion", "html"), ("success", "async", "html"),
        ("oauth-error", "async", "uri"), ("oauth-error", "completion", "uri"),
        ("cancel", "async", "uri"), ("cancel", "completion", "html"),
        ("task-cancel", "async", "uri"), ("task-cancel", "async", "html"),
    ]

    @Test("The app's page, loaded right after the outcome, is shown 1 s and 6 s later; no handler left", arguments: Platform.standard, cases)
    func appPageWins(_ platform: Platform, _ setup: (outcome: String, api: String, load: String)) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.appAfter, setup.outcome, setup.api, setup.load, on: platform)
        #expect(report[.error] == nil, "\(report[.error] ?? "")")
        #expect(report[.outcome] == (setup.outcome == "success" ? "success" : "failure"))
        let appURL = try #require(report[.appURL])
        for moment in ["1s", "6s"] {
            #expect(report[.uri.suffixed(by: "\(moment)")] == appURL, "at \(moment)")
            #expect(report[.title.suffixed(by: "\(moment)")] == "App page, script ran", "at \(moment): the app's page and its script")
            #expect(report[.handlersLeft.suffixed(by: "\(moment)")] == 0, "at \(moment)")
        }
        #expect(report[.redirectPortHits] == 0, "the ended page never reached the redirect URI")
        #expect(report[.terminalCount] == 1)
        if setup.load == "uri" { #expect(report[.appRequests] == 1) }
    }
}
