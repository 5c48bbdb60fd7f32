import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Warm start: `EmbeddedWebviewProvider.prewarm` prepares the next sign-in window ahead of time.
@Suite(.serialized, .desktop)
struct PrewarmTests {
    @Test("prewarm(keepReady:): each sign-in adopts a prepared window, configured for it, with no page of another session in its history; a new one is ready after each; release leaves no window",
        arguments: Platform.standard)
    func prewarmKeepsOneReady(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.prewarm, on: platform)
        #expect(report[.readyBeforePrewarm] == false)
        #expect(report[.readyAfterPrewarm] == true)
        #expect(report[.toplevelsAfterPrewarm] == (report[.toplevelsBefore] ?? -1) + 1, "one hidden window is prepared")
        #expect(report[.visibleAfterPrewarm] == 0, "the prepared window stays hidden until a sign-in")
        #expect(report[.preparedLoaded] == true, "the prepared window's web process came up")
        for round in 1...2 {
            let prefix = "round\(round)."
            #expect(report[.outcome.prefixed(by: prefix)] == "success")
            #expect(report[.code.prefixed(by: prefix)] == "round\(round)", "each session gets its own page and code")
            #expect(report[.readyDuring.suffixed(by: "\(round)")] == false, "the session took the prepared window")
            #expect(report[.windowTitle.prefixed(by: prefix)] == "Sign in to Test IdP", "the adopted window has the session's title")
            #expect(report[.windowDefaultWidth.prefixed(by: prefix)] == 480)
            #expect(report[.windowVisible.prefixed(by: prefix)] == true)
            let history = report[.history.prefixed(by: prefix)] ?? ["missing"]
            #expect(history.allSatisfy { !$0.contains("/authorize") }, "no earlier sign-in page in the view's history: \(history)")
            #expect(report[.readyAfter.suffixed(by: "\(round)")] == true, "keepReady prepares a new window after each session")
            EmbeddedWebviewProviderTests.expectSuccessOrder(report, prefix: prefix)
        }
        #expect(report[.readyAfterRelease] == false)
        #expect(report[.toplevelsAfterRelease] == report[.toplevelsBefore], "release destroys the prepared window: \(report[.toplevelsAfterReleaseTypes] ?? [])")
        #expect(report[.callbackRequests] == 0)
    }

    @Test("WebAuthSession.prewarm(parameters:) prepares the window realized, hidden and at the session's size; the session adopts it and shows the page at that size",
        arguments: Platform.standard)
    func prewarmForASession(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.prewarmForSession, on: platform)
        #expect(report[.prewarmedBy] == "embedded")
        #expect(report[.hiddenWindows] == 1)
        #expect(report[.hiddenRealized] == true, "realized ahead, so that showing it only maps it")
        #expect(report[.visibleAfterPrewarm] == 0)
        #expect(report[.preparedLoaded] == true, "the prepared window's web process came up")
        #expect(report[.adopted] == true)
        #expect(report[.windowDefaultWidth] == 480)
        #expect(report[.windowDefaultHeight] == 560)
        let viewWidth = report[.viewWidth] ?? 0
        #expect((460...480).contains(viewWidth), "the page is shown at the session's width: \(viewWidth)")
        #expect(report[.windowVisible] == true)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "warm")
    }
}
