import Foundation
import ScenarioSupport
import Testing

/// acquireToken through the system-browser provider with a real browser: headless Chromium is
/// the desktop's default browser (``ChromiumDesktop``), Glewlwyd's own login application runs
/// in it, and ``ChromiumAutopilot`` types and clicks in it as a person would.
extension GlewlwydSignInTests {
    @Test("System browser is real Chromium: Glewlwyd's login page, typed into and clicked through, consent screen, verified tokens")
    func realChromiumEndToEnd() async throws {
        try await server.setConsent(false, for: server.consentClientID)
        // Chromium went on to the loopback listener with the code (the autopilot saw the page).
        let run = try await runInChromium(.systemBrowser, [server.consentClientID]) {
            $0.hasPrefix("http://127.0.0.1:23682/callback?") && $0.contains("code=")
        }
        let (report, autopilot, reachedCallback, launches, cleanup) = (run.report, run.autopilot, run.reachedPage, run.launches, run.cleanup)

        expectAlice(report)
        #expect(report[.notifications]?.last == "DidComplete")
        #expect(report[.renewedAccessTokenDiffers] == true)
        // The person's steps, in Chromium: the login form (typed into), the consent screen, Continue.
        let steps = autopilot.steps
        let acted = steps.map(\.name).filter { ["login", "consent", "continue"].contains($0) }
        #expect(acted == ["login", "consent", "continue"], "\(autopilot.log)")
        let login = try #require(steps.first { $0.name == "login" })
        #expect(login.typedUsername == server.username)
        #expect(login.typedPasswordLength == server.password.count)
        #expect(reachedCallback, "\(autopilot.log)")
        #expect(launches.count == 1, "\(launches)")
        #expect(cleanup.runningAtStop >= 8, "\(cleanup)")
        #expect(cleanup.isClean, "\(cleanup)")
    }

    /// Issue 28 in the person's browser: sign in, sign out at the provider (Glewlwyd's logout page
    /// in Chromium, its Logout clicked, then the loopback listener's "Signed out" page), sign in
    /// again: Chromium's Glewlwyd session is gone, so the login form is typed into twice.
    @Test("Sign-out at the provider in real Chromium: its Glewlwyd session ends, the next sign-in types the password again")
    func realChromiumSignOut() async throws {
        let run = try await runInChromium(.signOut, ["browser", "identity", server.clientID]) {
            $0.hasPrefix("http://127.0.0.1:23682/logged-out?") && $0.contains("state=")
        }
        let (report, autopilot, reachedSignedOutPage) = (run.report, run.autopilot, run.reachedPage)
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")\n\(autopilot.log)")
        #expect(report[.signOutOutcome] == "signedOut", "\(autopilot.log)")
        #expect(report[.tokensRemoved] == true)
        #expect(report[.accountsAfter] == [])
        #expect(reachedSignedOutPage, "\(autopilot.log)")
        let acted = autopilot.steps.map(\.name).filter { ["login", "logout"].contains($0) }
        #expect(acted == ["login", "logout", "login"], "the password typed again after the logout: \(autopilot.log)")
    }
}
