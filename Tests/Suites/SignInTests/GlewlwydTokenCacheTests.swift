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

    /// Issue 27, item 3: a cache file of the person's that others could write (0666) is refused,
    /// and was refused for ever; now a sign-in replaces it (a new 0600 file renamed over it, the old
    /// content never read), and a new process finds the account there.
    @Test func aCacheFileOthersCouldWriteIsReplacedAfterASignInAndReadByTheNextProcess() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("org.example.App")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder.appendingPathComponent("cache.json")
        // A planted account: whoever could write the file could have put it there.
        try Data(#"{"Account":{"planted-login.example-x":{"home_account_id":"planted","environment":"127.0.0.1","realm":"x","local_account_id":"planted","username":"mallory","authority_type":"MSSTS"}}}"#.utf8)
            .write(to: file)
        #expect(chmod(file.path, 0o666) == 0)
        let environment = scenarioEnvironment(store: "file:\(file.path)")
        let refused = try await TokenCacheScenario.run(.accounts, environment: environment)
        #expect((refused["error"] as? [String: Any])?["code"] as? String == "providerUnavailable", "\(refused)")

        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        let accountID = try #require(signIn["account"] as? String)
        #expect(signIn["tokenCacheError"] as? String == "unsafeFileReplaced", "the result says the file was replaced")
        var status = stat()
        #expect(lstat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600, "mode \(String(status.st_mode & 0o777, radix: 8))")
        let content = try String(contentsOf: file, encoding: .utf8)
        #expect(!content.contains("mallory") && !content.contains("planted"), "the old content was never read")

        let accounts = try await TokenCacheScenario.succeed(.accounts, environment: environment)
        #expect(accounts["accounts"] as? [String] == [accountID], "a new process reads the account from the new file")
    }

    /// A link to a file others could write, and a file another user owns, stay refused after a
    /// sign-in (the tokens stay in memory for the run): replacing either would not be the person's fix.
    @Test(arguments: ["symbolic link", "another user's file"])
    func aLinkOrAnotherUsersFileStaysRefusedAfterASignIn(_ kind: String) async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("org.example.App")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder.appendingPathComponent("cache.json")
        let target = directory.appendingPathComponent("elsewhere.json")
        let planted = Data(#"{"Account":{}}"#.utf8)
        if kind == "symbolic link" {
            try planted.write(to: target)
            #expect(chmod(target.path, 0o666) == 0)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        } else {
            try #require(geteuid() == 0, "chown to nobody needs root, as the test machines run")
            try planted.write(to: file)
            #expect(chmod(file.path, 0o644) == 0)
            #expect(chown(file.path, 65534, 65534) == 0)
        }
        let environment = scenarioEnvironment(store: "file:\(file.path)")
        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        #expect(signIn["tokenCacheError"] as? String == "unsafePermissions", "still refused: \(signIn)")
        var status = stat()
        #expect(lstat(file.path, &status) == 0)
        if kind == "symbolic link" {
            #expect(status.st_mode & S_IFMT == S_IFLNK, "the link is still there")
            #expect(try Data(contentsOf: target) == planted, "its target was not written")
        } else {
            #expect(status.st_uid == 65534, "the other user's file is still there")
        }
        let refused = try await TokenCacheScenario.run(.accounts, environment: environment)
        #expect((refused["error"] as? [String: Any])?["code"] as? String == "providerUnavailable")
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
