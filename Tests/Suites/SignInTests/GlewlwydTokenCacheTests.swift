import Foundation
import ScenarioSupport
import Testing

@testable import SignIn

/// The token cache against the real Glewlwyd server, each step in a process of its own
/// (`TokenCacheScenarios`): what a later process finds can only have come from the store.
/// In ``GlewlwydSignInTests`` so that they share its server (one per suite, on one port).
extension GlewlwydSignInTests {
    func scenarioEnvironment(store: String, extra: [String: String] = [:]) -> [String: String] {
        [
            "STORE": store, "ISSUER": server.issuer.absoluteString, "CLIENT_ID": server.clientID,
            "BROWSER_SCRIPT": GlewlwydServer.browserScript.path, "USERNAME": server.username, "PASSWORD": server.password,
        ].merging(extra) { $1 }
    }

    /// How many access tokens Glewlwyd has issued: one per token endpoint grant, counted in its database.
    func issuedAccessTokens() async throws -> Int {
        let database = server.stateDirectory.appendingPathComponent("glewlwyd.db").path
        let output = try await ScriptRunner.run("sqlite3", [database, "SELECT COUNT(*) FROM gpo_access_token;"], timeout: 20)
        guard output.status == 0, let count = Int(output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw GlewlwydError("Counting Glewlwyd's access tokens failed: \(output.standardError)")
        }
        return count
    }

    @Test func signedInAfterARestartThroughTheSecretService() async throws {
        try await KeyringSession.with { keyring in
            var environment = keyring.environment.merging(scenarioEnvironment(store: "secret:org.example.Test:restart")) { $1 }
            // Process 1 signs in through the (scripted) browser, stores, exits.
            let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
            let accountID = try #require(signIn["account"] as? String)
            #expect(signIn["refreshToken"] as? String != "")

            // Process 2: no user agent; the account and its valid token come from the keyring.
            let silent = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
            #expect(silent["accessToken"] as? String == signIn["accessToken"] as? String)
            #expect(silent["accountsBeforeReading"] as? [String] == [])
            #expect(silent["accounts"] as? [String] == [accountID])

            // Process 3, 56 minutes on: the access token is due, the refresh token renews it (one grant).
            let before = try await issuedAccessTokens()
            environment["CLOCK_OFFSET"] = "3360"
            let renewed = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
            #expect(renewed["accessToken"] as? String != signIn["accessToken"] as? String)
            #expect(renewed["account"] as? String == accountID)
            #expect(try await issuedAccessTokens() == before + 1)

            // Process 4: the renewed token was stored; no grant.
            let again = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
            #expect(again["accessToken"] as? String == renewed["accessToken"] as? String)
            #expect(try await issuedAccessTokens() == before + 1)
        }
    }

    @Test func signedInAfterARestartThroughAFileThatMSALPythonReads() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("org.example.App/cache.json")
        let environment = scenarioEnvironment(store: "file:\(file.path)")
        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        let accountID = try #require(signIn["account"] as? String)
        let subject = try #require(signIn["subject"] as? String)

        let silent = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
        #expect(silent["accessToken"] as? String == signIn["accessToken"] as? String)
        #expect(silent["accounts"] as? [String] == [accountID])

        // msal-python loads what we wrote after a real sign-in and finds the account and its refresh token.
        let found = try await TokenCacheScenario.msalPython(["read", file.path, "--home-account-id", subject, "--client-id", server.clientID])
        let accounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts.first?["username"] as? String == server.userEmail)
        let refreshTokens = try #require(found["refresh_tokens"] as? [[String: Any]])
        #expect(refreshTokens.map { $0["secret"] as? String } == [signIn["refreshToken"] as? String])
        #expect((found["access_tokens"] as? [[String: Any]])?.map { $0["secret"] as? String } == [signIn["accessToken"] as? String])
    }

    @Test func twoConcurrentSilentCallsMakeOneRefreshRequest() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = scenarioEnvironment(store: "file:\(directory.appendingPathComponent("cache.json").path)")
        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        let accountID = try #require(signIn["account"] as? String)

        let before = try await issuedAccessTokens()
        environment["CLOCK_OFFSET"] = "3360"
        let result = try await TokenCacheScenario.succeed(.concurrentSilent, [accountID], environment: environment)
        let tokens = try #require(result["accessTokens"] as? [String])
        #expect(tokens.count == 2)
        #expect(Set(tokens).count == 1, "both calls got the one renewed token")
        #expect(tokens.first != signIn["accessToken"] as? String)
        #expect(try await issuedAccessTokens() == before + 1, "one refresh grant at the server")
    }
}
