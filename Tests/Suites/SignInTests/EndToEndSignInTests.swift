import Foundation
import ScenarioSupport
import Testing

/// acquireToken end to end through the built-in providers, in a real GTK main loop
/// (`SignInScenarios`, under `xvfb-run -a`), against the suite's Glewlwyd server.
extension GlewlwydSignInTests {
    func scenario(
        _ name: SignInScenario, _ arguments: [String], desktop: TestDesktop, display: DisplayServer = .x11
    ) async throws -> ScenarioReport {
        var environment = desktop.environment
        environment["ISSUER"] = server.issuer.absoluteString
        environment["GLEWLWYD_USERNAME"] = server.username
        environment["GLEWLWYD_PASSWORD"] = server.password
        return try await ScenarioRunner.run(name, arguments: arguments, environment: environment, timeout: .seconds(110), display: display)
    }

    func expectAlice(_ report: ScenarioReport) {
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
        #expect(report[.name] == server.userName)
        #expect(report[.username] == server.userEmail)
        #expect(report[.issuer] == server.issuer.absoluteString)
        #expect(report[.subject]?.isEmpty == false)
        #expect(Set(report[.scopes] ?? []) == ["openid", "profile", "email", "offline_access"])
        #expect(report[.hasRefreshToken] == true)
    }

    @Test("Embedded window: Glewlwyd's real login page in WebKit, wrong password then right, consent screen, verified tokens")
    func embeddedWindowEndToEnd() async throws {
        try await server.setConsent(false, for: server.consentClientID)
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await scenario(
            .embeddedWindow, [server.consentClientID, "wrong-password,\(server.password)"], desktop: desktop)
        expectAlice(report)
        #expect(report[.titles] == ["wvh:login-1", "wvh:login-2", "wvh:consent", "wvh:continue"],
                "the page showed the login form twice (wrong password first), then the consent screen, then Continue")
        let notifications = report[.notifications] ?? []
        #expect(notifications.first == "DidStartLoad")
        #expect(notifications.last == "DidComplete")
        #expect(notifications.filter { $0 == "DidFail" }.isEmpty)
    }

    @Test("Embedded, in the app's own WebKitWebView: verified tokens, the view stays in the app's window")
    func embeddedCustomViewEndToEnd() async throws {
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await scenario(.embeddedCustomView, [server.clientID], desktop: desktop)
        expectAlice(report)
        #expect(report[.titles]?.contains("wvh:login-1") == true)
        #expect(report[.titles]?.contains("wvh:consent") == false, "this client's consent was granted in advance")
        #expect(report[.viewStillInWindow] == true)
        // After acquireToken's await (the token exchange ran after the session ended) the view is
        // as the session left it: no page, nothing loading, nothing loaded by the library.
        #expect(report[.uriAtResume] == "")
        #expect(report[.isLoadingAtResume] == false)
    }

    @Test("System browser: the desktop's default browser signs in over HTTP and lands on the loopback listener; then silent renewal")
    func systemBrowserEndToEnd() async throws {
        let desktop = try TestDesktop(browserCommand: "python3 \(GlewlwydServer.browserScript.path) %u")
        defer { desktop.remove() }
        let report = try await scenario(.systemBrowser, [server.clientID], desktop: desktop)
        expectAlice(report)
        #expect(report[.notifications]?.last == "DidComplete")
        #expect(report[.renewedAccessTokenDiffers] == true)
        #expect(report[.renewedSubject] == report[.subject])
    }
}
