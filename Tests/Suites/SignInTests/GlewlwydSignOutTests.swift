import Foundation
import ScenarioSupport
import Testing

/// Signing out for real (issue 28), against Glewlwyd's RP-Initiated Logout (`end_session` with
/// `post_logout_redirect_uris`): after `signOut` reaching the provider, the next `acquireToken`
/// shows the login form again; after "this app only" it needs no password. The logout's `state`
/// is checked; a logout page cancelled or timed out ends with one outcome and the tokens are
/// removed all the same.
extension GlewlwydSignInTests {
    func signOutScenario(_ mode: String, _ reach: String, variant: String = "") async throws -> ScenarioReport {
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        return try await scenario(.signOut, [mode, reach, server.clientID] + (variant.isEmpty ? [] : [variant]), desktop: desktop)
    }

    @Test("Sign-out at the provider, in the library's window and in a caller's view: the next sign-in asks for the password again", arguments: ["window", "view"])
    func signOutAtTheProviderEmbedded(_ mode: String) async throws {
        let report = try await signOutScenario(mode, "identity")
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
        #expect(report[.titles.prefixed(by: "first.")]?.contains("wvh:login-1") == true, "the first sign-in typed the password")
        #expect(report[.signOutOutcome] == "signedOut")
        #expect(report[.tokensRemoved] == true)
        #expect(report[.accountsAfter] == [])
        #expect(report[.titles.prefixed(by: "logout.")] == ["wvh:logout"], "Glewlwyd's logout page, its Logout pressed")
        #expect(report[.titles.prefixed(by: "second.")]?.contains("wvh:login-1") == true, "the session is gone: the login form again; second: \(report[.titles.prefixed(by: "second.")] ?? []), logout: \(report[.titles.prefixed(by: "logout.")] ?? []), \(report[.message] ?? "")")
    }

    @Test("Sign-out of this app only: the tokens go, the provider's session stays (no password the next time)")
    func signOutOfThisAppOnly() async throws {
        let report = try await signOutScenario("window", "app")
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
        #expect(report[.signOutOutcome] == "notAsked")
        #expect(report[.tokensRemoved] == true)
        #expect(report[.accountsAfter] == [])
        #expect(report[.titles.prefixed(by: "logout.")] == [])
        #expect(report[.titles.prefixed(by: "second.")]?.contains("wvh:login-1") == false, "still signed in at the provider")
    }

    @Test("A logout page that comes back with a forged state, is cancelled, or runs out of time: one outcome, the tokens removed",
          arguments: [("forge", "failed stateMismatch"), ("cancel", "failed canceled"), ("timeout", "failed timedOut")])
    func signOutThatDoesNotFinish(_ variant: String, _ outcome: String) async throws {
        let report = try await signOutScenario("window", "identity", variant: variant)
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
        #expect(report[.signOutOutcome] == outcome)
        #expect(report[.tokensRemoved] == true)
        #expect(report[.accountsAfter] == [], "the tokens are removed whatever the logout page did")
    }
}
