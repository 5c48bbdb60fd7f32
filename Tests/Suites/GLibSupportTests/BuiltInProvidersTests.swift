import Foundation
import ScenarioSupport
import Testing
import TestTraits

@Suite("The built-in providers through the default policy", .desktop)
struct BuiltInProvidersTests {
    @Test("registerBuiltInProviders registers both; with a display and no browser the default is the embedded view")
    func builtIns() async throws {
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        // A test's virtual authenticator named: help says the view answers WebAuthn with it.
        let socket = "/tmp/webviewhost-help-test.sock"
        let report = try await ScenarioRunner.run(
            GLibScenario.builtIns, environment: desktop.environment.merging(["WEBVIEWHOST_VIRTUAL_AUTHENTICATORS": socket]) { $1 })
        #expect(report[.registered] == ["system-browser", "embedded"])
        #expect(report[.default] == "embedded")
        let refused = try #require(report[.authenticationSession])
        #expect(refused.hasPrefix("providerUnavailable"))
        #expect(refused.contains("x-scheme-handler/https"), "the reason says what is missing: \(refused)")
        #expect(report[.noDisplay]?.hasPrefix("providerUnavailable") == true)
        let help = try #require(report[.help])
        #expect(help.contains("system-browser - "))
        #expect(help.contains("embedded - "))
        #expect(help.contains("device challenge (PKeyAuth): answered"), "help says what the embedded view answers at work: \(help)")
        #expect(help.contains("Windows sign-in (Kerberos, Negotiate): answered with the person's ticket at"), "help says whether Negotiate can run: \(help)")
        #expect(help.contains("client certificates: the app's"), "help says the app's client certificate is offered: \(help)")
        #expect(help.contains("passkeys and security keys (WebAuthn): answered in the view with the virtual authenticators at \(socket)"), "\(help)")
        #expect(help.contains("]: available"))
        #expect(help.contains("unavailable: "))
    }
}
