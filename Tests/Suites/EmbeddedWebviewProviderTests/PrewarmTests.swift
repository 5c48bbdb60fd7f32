import Foundation
import ScenarioSupport
import Testing

/// Warm start: `EmbeddedWebviewProvider.prewarm` prepares the next sign-in window ahead of time.
@Suite(.serialized)
struct PrewarmTests {
    @Test("prewarm(keepReady:): each sign-in adopts a prepared window, configured for it, with no page of another session in its history; a new one is ready after each; release leaves no window",
        arguments: Platform.standard)
    func prewarmKeepsOneReady(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario("prewarm", on: platform)
        #expect(report.bool("readyBeforePrewarm") == false)
        #expect(report.bool("readyAfterPrewarm") == true)
        #expect(report.int("toplevelsAfterPrewarm") == (report.int("toplevelsBefore") ?? -1) + 1, "one hidden window is prepared")
        #expect(report.int("visibleAfterPrewarm") == 0, "the prepared window stays hidden until a sign-in")
        #expect(report.bool("preparedLoaded") == true, "the prepared window's web process came up")
        for round in 1...2 {
            let prefix = "round\(round)."
            #expect(report.string(prefix + "outcome") == "success")
            #expect(report.string(prefix + "code") == "round\(round)", "each session gets its own page and code")
            #expect(report.bool("readyDuring\(round)") == false, "the session took the prepared window")
            #expect(report.string(prefix + "windowTitle") == "Sign in to Test IdP", "the adopted window has the session's title")
            #expect(report.int(prefix + "windowDefaultWidth") == 480)
            #expect(report.bool(prefix + "windowVisible") == true)
            let history = report.strings(prefix + "history") ?? ["missing"]
            #expect(history.allSatisfy { !$0.contains("/authorize") }, "no earlier sign-in page in the view's history: \(history)")
            #expect(report.bool("readyAfter\(round)") == true, "keepReady prepares a new window after each session")
            EmbeddedWebviewProviderTests.expectSuccessOrder(report, prefix: prefix)
        }
        #expect(report.bool("readyAfterRelease") == false)
        #expect(report.int("toplevelsAfterRelease") == report.int("toplevelsBefore"), "release destroys the prepared window: \(report.strings("toplevelsAfterReleaseTypes") ?? [])")
        #expect(report.int("callbackRequests") == 0)
    }

    @Test("WebAuthSession.prewarm(parameters:) prepares the window realized, hidden and at the session's size; the session adopts it and shows the page at that size",
        arguments: Platform.standard)
    func prewarmForASession(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario("prewarm-for-session", on: platform)
        #expect(report.string("prewarmedBy") == "embedded")
        #expect(report.int("hiddenWindows") == 1)
        #expect(report.bool("hiddenRealized") == true, "realized ahead, so that showing it only maps it")
        #expect(report.int("visibleAfterPrewarm") == 0)
        #expect(report.bool("preparedLoaded") == true, "the prepared window's web process came up")
        #expect(report.bool("adopted") == true)
        #expect(report.int("windowDefaultWidth") == 480)
        #expect(report.int("windowDefaultHeight") == 560)
        let viewWidth = report.int("viewWidth") ?? 0
        #expect((460...480).contains(viewWidth), "the page is shown at the session's width: \(viewWidth)")
        #expect(report.bool("windowVisible") == true)
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "warm")
    }
}
