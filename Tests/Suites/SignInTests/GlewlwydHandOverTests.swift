import Foundation
import ScenarioSupport
import Testing

/// `acquireToken` that starts in the library's embedded window against Glewlwyd and finishes in
/// the person's browser (headless Chromium, the desktop's default, driven by
/// ``ChromiumAutopilot``) inside the same await; and the embedded request's `state` replayed to
/// the browser's listener. Scenario: `SignInScenarios embedded-hand-over` (HandOverScenario.swift).
/// An extension of the Glewlwyd suite: one Glewlwyd-backed suite runs per test process.
extension GlewlwydSignInTests {
    @Test(
        "Embedded window hands over to Chromium: a refusal rule on Glewlwyd's login page, or the app's continueInSystemBrowser(); verified tokens from the browser's request",
        arguments: ["refusal", "app"])
    func embeddedHandsOverToChromium(trigger: String) async throws {
        let tokensBefore = try await countRows("SELECT COUNT(*) FROM gpo_access_token;")
        let browserRedirect = trigger == "app" ? "http://127.0.0.1:23683/callback" : "http://127.0.0.1:23685/embedded-callback"
        let run = try await runInChromium(.embeddedHandOver, [server.clientID, trigger]) {
            $0.hasPrefix(browserRedirect + "?") && $0.contains("code=")
        }
        let (report, autopilot, reachedCallback, launches, cleanup) = (run.report, run.autopilot, run.reachedPage, run.launches, run.cleanup)

        // Verified tokens (the library checked the ID token: signature, issuer, audience, nonce).
        expectAlice(report)
        #expect(report[.idTokenAudience] == [server.clientID])
        let events = report[.events] ?? []
        // In order: the view's steps, the hand-over, the browser's steps, one terminal event.
        let switchIndex = try #require(events.firstIndex { $0.hasPrefix("willSwitchToSystemBrowser(") }, "\(events)")
        let expectedReason = trigger == "app" ? "appRequested" : "embeddedAgentRefused"
        #expect(events[switchIndex] == "willSwitchToSystemBrowser(\(expectedReason))", "\(events)")
        #expect(events.filter { $0.hasPrefix("willSwitchToSystemBrowser(") }.count == 1, "\(events)")
        let viewSteps = events[..<switchIndex].filter { $0.hasPrefix("didStartLoad(") || $0.hasPrefix("didFinishLoad(") }
        #expect(viewSteps.first?.hasPrefix("didStartLoad(\(server.issuer.absoluteString)") == true, "\(events)")
        if trigger == "app" {
            // The app asked once the view's page had loaded.
            #expect(viewSteps.contains { $0.hasPrefix("didFinishLoad(") }, "\(events)")
            #expect(events.contains("continueInSystemBrowser() -> true"), "\(events)")
        }
        // The embedded redirect was never reached: the view's request never came back.
        #expect(!events[..<switchIndex].contains { $0.contains("23685/embedded-callback?") }, "\(events)")
        let browserSteps = events[(switchIndex + 1)...]
        #expect(browserSteps.first?.hasPrefix("didStartLoad(\(server.issuer.absoluteString)") == true, "\(events)")
        #expect(events.filter { $0.hasPrefix("didComplete(") || $0.hasPrefix("didFail(") }.count == 1, "\(events)")
        #expect(events.last?.hasPrefix("didComplete(\(browserRedirect)?") == true, "\(events)")

        // Two requests, each its own: state, nonce, PKCE pair; the browser's for its redirect URI.
        let firstState = try #require(report[.firstState], "\(report)")
        let browserState = try #require(report[.browserState], "\(report)")
        #expect(!firstState.isEmpty && !browserState.isEmpty && firstState != browserState)
        #expect(report[.firstNonce] != report[.browserNonce])
        #expect(report[.firstCodeChallenge] != report[.browserCodeChallenge])
        #expect(report[.firstRedirectURI] == "http://127.0.0.1:23685/embedded-callback")
        #expect(report[.browserRedirectURI] == browserRedirect)
        #expect(report[.idTokenNonce] == report[.browserNonce])
        #expect(events.last?.contains("state=\(browserState)") == true, "\(events)")

        // Glewlwyd: no code was ever issued for the view's request; the browser's was issued and redeemed once.
        let firstNonce = try #require(report[.firstNonce])
        let browserNonce = try #require(report[.browserNonce])
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_code WHERE gpoc_nonce = '\(firstNonce)';") == 0)
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_code WHERE gpoc_nonce = '\(browserNonce)';") == 1)
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_code WHERE gpoc_nonce = '\(browserNonce)' AND gpoc_enabled = 0;") == 1)
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_access_token;") == tokensBefore + 1)

        // The person's steps happened in Chromium, and Chromium delivered the callback.
        #expect(autopilot.steps.map(\.name).contains("login"), "\(autopilot.log)")
        #expect(reachedCallback, "\(autopilot.log)")
        #expect(launches.count == 1, "\(launches)")
        #expect(cleanup.runningAtStop >= 8, "\(cleanup)")
        #expect(cleanup.isClean, "\(cleanup)")
    }

    @Test("Hand-over: the embedded request's state, delivered to the browser's listener before Chromium signs in, ends the session with stateMismatch, no tokens")
    func embeddedRequestStateReplayedToTheBrowserIsRefused() async throws {
        let tokensBefore = try await countRows("SELECT COUNT(*) FROM gpo_access_token;")
        let codesBefore = try await countRows("SELECT COUNT(*) FROM gpo_code;")
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        // No autopilot: nobody signs in in Chromium, so the replayed callback is the only one.
        let report = try await browser.runScenario(
            SignInScenario.embeddedHandOver, arguments: [server.clientID, "refusal", "replay"],
            environment: ["ISSUER": server.issuer.absoluteString])
        let launches = browser.launchedURLs
        let cleanup = await browser.stop()

        #expect(report[.outcome] == "stateMismatch", "\(report)")
        #expect(report[.message]?.contains("state does not match") == true, "\(report)")
        let firstState = try #require(report[.firstState], "\(report)")
        let browserState = try #require(report[.browserState], "\(report)")
        #expect(!firstState.isEmpty && firstState != browserState)
        // The listener answered the replayed request with the failure page (not hung, not "signed in").
        #expect(report[.replayAnswer]?.hasPrefix("HTTP/1.") == true, "\(report)")
        #expect(report[.replayAnswer]?.hasSuffix(" | Sign-in failed") == true, "\(report)")
        let events = report[.events] ?? []
        #expect(events.filter { $0.hasPrefix("willSwitchToSystemBrowser(") } == ["willSwitchToSystemBrowser(embeddedAgentRefused)"], "\(events)")
        #expect(events.filter { $0.hasPrefix("didComplete(") || $0.hasPrefix("didFail(") } == ["didFail(stateMismatch)"], "\(events)")
        #expect(events.last == "didFail(stateMismatch)", "\(events)")
        // Nothing was redeemed, and Glewlwyd issued no code at all (nobody signed in).
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_access_token;") == tokensBefore)
        #expect(try await countRows("SELECT COUNT(*) FROM gpo_code;") == codesBefore)
        #expect(launches.count == 1, "\(launches)")
        #expect(cleanup.isClean, "\(cleanup)")
    }

    /// One number from Glewlwyd's database (`sqlite3`).
    func countRows(_ query: String) async throws -> Int {
        let database = server.stateDirectory.appendingPathComponent("glewlwyd.db").path
        let output = try await ScriptRunner.run("sqlite3", [database, query], timeout: 20)
        guard output.status == 0, let count = Int(output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw GlewlwydError("sqlite3 \(query) failed: \(output.standardError)")
        }
        return count
    }
}
