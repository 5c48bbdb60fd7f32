import Foundation
import ScenarioSupport
import Testing
import WebviewHost

@testable import SignIn

/// A failing token store and two processes renewing one account, each app in a process of its
/// own (`TokenCacheScenarios`) against the real Glewlwyd server, a real gnome-keyring on a
/// private bus, or no Secret Service at all. In ``GlewlwydSignInTests`` so that they share its server.
extension GlewlwydSignInTests {
    /// Waits (bounded) until `file` exists, and returns its JSON.
    func waitForJSON(_ file: URL, seconds: TimeInterval) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: file.path) {
            guard Date() < deadline else { throw GlewlwydError("\(file.lastPathComponent) did not appear within \(Int(seconds)) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    /// Whether the login collection of `keyring` is locked, asked on its bus.
    func loginCollectionIsLocked(_ keyring: KeyringSession) async throws -> Bool {
        let output = try await ScriptRunner.run(
            "gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets/collection/login",
                "--method", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Collection", "Locked"],
            environment: keyring.environment, timeout: 20)
        guard output.status == 0 else { throw GlewlwydError("gdbus Locked failed: \(output.standardError)") }
        return output.standardOutput.contains("true")
    }

    @Test func aSignInOnALockedKeyringIsKeptInMemoryAndSavedOnceTheKeyringIsUnlocked() async throws {
        // No display: the keyring's unlock prompt ends dismissed, as when the person presses Cancel.
        try await KeyringSession.with(display: false) { keyring in
            let environment = keyring.environment.merging(scenarioEnvironment(store: "secret:org.example.Test:locked-sign-in")) { $1 }
            let locked = try await ScriptRunner.run(
                "gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                    "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
                environment: keyring.environment, timeout: 20)
            #expect(locked.status == 0, "\(locked.standardError)")
            #expect(try await loginCollectionIsLocked(keyring))

            let directory = try TokenCacheScenario.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            async let kept = TokenCacheScenario.run(.signInKeep, [directory.path], environment: environment, timeout: 150)

            // Process 1 signed in: the app has its tokens, sees the store's failure, and renews from memory.
            let signedIn = try await waitForJSON(directory.appendingPathComponent("signed-in.json"), seconds: 120)
            let accountID = try #require(signedIn["account"] as? String)
            #expect(signedIn["tokenCacheError"] as? String == "locked")
            #expect((signedIn["tokenCacheMessage"] as? String)?.contains("unlock") == true)
            #expect(signedIn["silentAccessToken"] as? String == signedIn["accessToken"] as? String)
            #expect(signedIn["silentTokenCacheError"] as? String == "locked")
            #expect(try await loginCollectionIsLocked(keyring), "nobody unlocked it")

            // The person unlocks the keyring (logs in again: a new daemon unlocks the login keyring
            // with the password), and the app tries again.
            let unlock = try await ScriptRunner.run(
                "bash", ["-c", "echo -n token-cache-tests | gnome-keyring-daemon --replace --unlock --components=secrets > /dev/null"],
                environment: keyring.environment.merging([
                    "HOME": keyring.directory.path, "XDG_DATA_HOME": keyring.directory.appendingPathComponent("data").path,
                ]) { $1 }, timeout: 30)
            #expect(unlock.status == 0, "\(unlock.standardError)")
            let deadline = Date().addingTimeInterval(30)
            while try await loginCollectionIsLocked(keyring) {
                guard Date() < deadline else { throw GlewlwydError("the login keyring was not unlocked within 30 s") }
                try await Task.sleep(for: .milliseconds(50))
            }
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("go").path, contents: nil)
            let saved = try await kept
            #expect(saved["saved"] as? Bool == true, "\(saved)")
            #expect(saved["unsaved"] as? String == "")

            // A new process finds the account in the keyring and signs in silently, with the same token.
            let silent = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
            #expect(silent["accessToken"] as? String == signedIn["accessToken"] as? String)
            #expect(silent["refreshToken"] as? String == signedIn["refreshToken"] as? String)
            #expect(silent["accountsBeforeReading"] as? [String] == [])
        }
    }

    /// How many authorization codes Glewlwyd has issued (one per sign-in page that got as far as a login).
    func issuedCodes() async throws -> Int {
        let database = server.stateDirectory.appendingPathComponent("glewlwyd.db").path
        let output = try await ScriptRunner.run("sqlite3", [database, "SELECT COUNT(*) FROM gpo_code;"], timeout: 20)
        guard output.status == 0, let count = Int(output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw GlewlwydError("Counting Glewlwyd's codes failed: \(output.standardError)")
        }
        return count
    }

    @Test func aLockedKeyringIsReportedBeforeTheSignInPageAndTheAppMayStop() async throws {
        try await KeyringSession.with(display: false) { keyring in
            var environment = keyring.environment.merging(scenarioEnvironment(store: "secret:org.example.Test:stop")) { $1 }
            environment["STORE_UNAVAILABLE"] = "stop"
            let locked = try await ScriptRunner.run(
                "gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                    "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
                environment: keyring.environment, timeout: 20)
            #expect(locked.status == 0, "\(locked.standardError)")
            let codes = try await issuedCodes()
            let result = try await TokenCacheScenario.run(.signIn, environment: environment)
            let error = try #require(result["error"] as? [String: Any], "signed in although the app said stop: \(result)")
            #expect(error["code"] as? String == "providerUnavailable")
            #expect(error["storageCode"] as? String == "locked")
            #expect((error["message"] as? String)?.contains("nobody was asked to sign in") == true)
            #expect(try await issuedCodes() == codes, "the sign-in page was never used: no password typed, no code issued")

            // The same app answering "memory for this run" signs in: the page is used (one code).
            environment["STORE_UNAVAILABLE"] = nil
            let signedIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
            #expect(signedIn["tokenCacheError"] as? String == "locked")
            #expect(try await issuedCodes() == codes + 1)
        }
    }

    @Test func aSignInWhereTheKeyringHasNoDefaultCollectionCompletesAndSaysSo() async throws {
        // A bus on which gnome-keyring is started on demand with no keyring at all and no display
        // for its "new keyring" prompt: the person cannot create one.
        let home = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let started = Date()
        let output = try await ScriptRunner.run(
            "env", ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "dbus-run-session", "--", TokenCacheScenario.program, TokenCacheCommand.signIn.rawValue],
            environment: scenarioEnvironment(store: "secret:org.example.Test:no-collection", extra: [
                "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.path,
                "SCENARIO_TIMEOUT": "100",
            ]), timeout: 110)
        let line = try #require(output.standardOutput.split(separator: "\n").last { $0.hasPrefix("RESULT ") }, "\(output.standardError.suffix(2000))")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
        #expect(result["error"] == nil, "\(result)")
        #expect(!(result["accessToken"] as? String ?? "").isEmpty, "the app got its tokens")
        #expect(["locked", "unavailable", "timedOut"].contains(result["tokenCacheError"] as? String), "\(result)")
        #expect(Date().timeIntervalSince(started) < 60, "no 30-second wait after the sign-in")
    }

    @Test func anUnlockPromptNobodyAnswersDelaysTheSignInPageABoundedTime() async throws {
        try #require(ProcessInfo.processInfo.environment["DISPLAY"] != nil, "run the tests under xvfb-run: the prompt needs a display")
        // The keyring's unlock prompt shows on the test display, before the page, and nobody answers it.
        try await KeyringSession.with(display: true) { keyring in
            var environment = keyring.environment.merging(scenarioEnvironment(store: "secret:org.example.Test:prompt")) { $1 }
            environment["STORE_TIMEOUT"] = "3"
            let locked = try await ScriptRunner.run(
                "gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                    "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']"],
                environment: keyring.environment, timeout: 20)
            #expect(locked.status == 0, "\(locked.standardError)")
            let started = Date()
            let result = try await TokenCacheScenario.run(.signIn, environment: environment)
            #expect(result["error"] == nil, "\(result)")
            #expect(result["tokenCacheError"] as? String == "timedOut", "\(result)")
            #expect(Date().timeIntervalSince(started) < 30, "one 3-second wait for the prompt, then the sign-in; no second wait after it")
        }
    }

    @Test func aSignInWithoutAnySecretServiceCompletesAndSaysSo() async throws {
        let home = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = scenarioEnvironment(store: "secret:org.example.Test:no-service", extra: [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(home.path)/no-bus", "HOME": home.path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.path,
        ])
        let directory = home.appendingPathComponent("sync")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        async let kept = TokenCacheScenario.run(.signInKeep, [directory.path], environment: environment, timeout: 150)
        let signedIn = try await waitForJSON(directory.appendingPathComponent("signed-in.json"), seconds: 120)
        #expect(signedIn["tokenCacheError"] as? String == "unavailable")
        #expect((signedIn["tokenCacheMessage"] as? String)?.contains("Secret Service") == true)
        #expect(!(signedIn["accessToken"] as? String ?? "").isEmpty)
        #expect(signedIn["silentAccessToken"] as? String == signedIn["accessToken"] as? String)

        // Still no Secret Service: trying again fails with the same clear error, and nothing is lost or written elsewhere.
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("go").path, contents: nil)
        let retried = try await kept
        let error = try #require(retried["error"] as? [String: Any], "\(retried)")
        #expect(error["code"] as? String == "providerUnavailable")
        #expect(error["storageCode"] as? String == "unavailable")
        let planted = (FileManager.default.subpaths(atPath: home.path) ?? []).filter { path in
            guard let data = FileManager.default.contents(atPath: home.appendingPathComponent(path).path) else { return false }
            return String(decoding: data, as: UTF8.self).contains("credential_type")
        }
        #expect(planted.isEmpty, "no plain-text fall-back: \(planted)")
    }

    @Test func theOneUseClientRefusesASpentRefreshToken() async throws {
        // The next test means something only if Glewlwyd really refuses a spent refresh token.
        let clock = TestClock()
        let app = try PublicClientApplication(configuration: .init(
            clientID: server.oneUseClientID, authority: server.issuer, redirectURI: requestedRedirect,
            defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15,
            now: { clock.now }, tokenCacheStorage: InMemoryTokenCacheStorage()))
        let first = try await acquireToken(app, through: provider(.signIn([alice]))).get()
        let spent = try #require(first.refreshToken)
        let renewed = try await app.acquireTokenSilent(with: .init(scopes: [], account: first.account, forceRefresh: true))
        #expect(renewed.refreshToken != spent, "a one-use refresh token is rotated")
        try await app.cache.replaceRefreshTokens(of: first.account, with: spent)
        var refused: WebAuthError?
        do throws(WebAuthError) {
            _ = try await app.acquireTokenSilent(with: .init(scopes: [], account: first.account, forceRefresh: true))
        } catch {
            refused = error
        }
        #expect(refused?.code == .interactionRequired)
        // Glewlwyd 2.7 refuses a spent refresh token with HTTP 400 and no OAuth error body
        // (where Microsoft Entra ID says invalid_grant).
        #expect(refused?.message.contains("refused to renew") == true, "\(refused?.message ?? "")")
    }

    @Test(arguments: ["file", "secret"])
    func twoProcessesRenewingOneAccountAtOnceMakeOneRequest(store: String) async throws {
        let rounds = 50
        try await KeyringSession.with { keyring in
            let directory = try TokenCacheScenario.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let spec = store == "file" ? "file:\(directory.appendingPathComponent("cache.json").path)" : "secret:org.example.Test:rounds"
            var environment = keyring.environment.merging(scenarioEnvironment(store: spec)) { $1 }
            environment["CLIENT_ID"] = server.oneUseClientID
            let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
            let accountID = try #require(signIn["account"] as? String)
            let sync = directory.appendingPathComponent("rounds")
            try FileManager.default.createDirectory(at: sync, withIntermediateDirectories: true)

            let before = try await issuedAccessTokens()
            let started = Date()
            async let first = TokenCacheScenario.run(
                .refreshRounds, [accountID, String(rounds), sync.path, "a", "b"], environment: environment, timeout: 600)
            async let second = TokenCacheScenario.run(
                .refreshRounds, [accountID, String(rounds), sync.path, "b", "a"], environment: environment, timeout: 600)
            let (a, b) = try await (first, second)
            let elapsed = Date().timeIntervalSince(started)
            #expect(a["error"] == nil, "process a: \(a["error"] ?? "")")
            #expect(b["error"] == nil, "process b: \(b["error"] ?? "")")
            let roundsA = try #require(a["rounds"] as? [[String: String]])
            let roundsB = try #require(b["rounds"] as? [[String: String]])
            #expect(roundsA.count == rounds)
            #expect(roundsB.count == rounds)
            for (index, (x, y)) in zip(roundsA, roundsB).enumerated() {
                #expect(x["accessToken"] == y["accessToken"], "round \(index + 1): the two processes got different tokens")
                #expect(x["refreshToken"] == y["refreshToken"], "round \(index + 1)")
            }
            #expect(Set(roundsA.compactMap { $0["accessToken"] }).count == rounds, "a new token every round")
            #expect(try await issuedAccessTokens() == before + rounds, "one token request per round at the server")
            print("two processes, \(rounds) rounds over the \(store) store: \(String(format: "%.1f", elapsed)) s")

            // The refresh token the store holds at the end is the live one: a third process renews with it.
            let last = try await TokenCacheScenario.succeed(.silent, [accountID, "force"], environment: environment)
            #expect(last["accessToken"] as? String != roundsA.last?["accessToken"])
        }
    }
}
