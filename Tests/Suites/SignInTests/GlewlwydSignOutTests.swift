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
        #expect(report[.signOutOutcome] == "signedOut", "\(report[.loads] ?? [])")
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

extension GlewlwydSignInTests {
    /// Switching accounts: alice, then bob with `prompt=login` in the same window (its store
    /// remembers alice's session), both in one cache file, each renewed with its own refresh
    /// token; alice signed out of this app leaves bob usable, and msal-python finds bob only.
    @Test("Two accounts one after the other (prompt=login): both listed, each renewed, one signed out, the other usable and read by msal-python")
    func twoAccountsOneAfterTheOther() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.json")
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        let report = try await scenario(.twoAccounts, [server.clientID, file.path], desktop: desktop)
        #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
        #expect(report[.titles.prefixed(by: "first.")]?.contains("wvh:login-1") == true)
        #expect(report[.titles.prefixed(by: "second.")]?.contains("wvh:login-1") == true,
                "prompt=login shows the login form although alice's session is remembered: \(report[.titles.prefixed(by: "second.")] ?? [])")
        #expect(report[.username] == server.userEmail)
        #expect(report[.username.prefixed(by: "second.")] == "bob@example.com")
        #expect(report[.accountsAfter.prefixed(by: "both.")] == ["bob@example.com", server.userEmail].sorted())
        let alice = try #require(report[.subject]), bob = try #require(report[.subject.prefixed(by: "second.")])
        #expect(alice != bob)
        #expect(report[.renewedSubject.prefixed(by: "alice.")] == alice)
        #expect(report[.renewedSubject.prefixed(by: "bob.")] == bob)
        #expect(report[.renewedAccessTokenDiffers.prefixed(by: "alice.")] == true)
        #expect(report[.renewedAccessTokenDiffers.prefixed(by: "bob.")] == true)
        #expect(report[.tokensRemoved] == true)
        #expect(report[.accountsAfter] == ["bob@example.com"])
        #expect(report[.renewedSubject.prefixed(by: "after.")] == bob)
        #expect(report[.message.prefixed(by: "alice.")] == "interactionRequired")

        let found = try await TokenCacheScenario.msalPython(["read", file.path, "--client-id", server.clientID])
        let accounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["username"] as? String } == ["bob@example.com"])
        #expect((found["refresh_tokens"] as? [[String: Any]])?.count == 1)
    }
}
