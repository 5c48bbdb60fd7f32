import Foundation
import ScenarioSupport
import Synchronization
import Testing
import TestTraits
import WebviewHost
#if canImport(Glibc)
import Glibc
#endif

@testable import SignIn
@testable import TokenCache

/// The token cache without a sign-in server: MSAL's format (read by msal-python, and msal-python's
/// read by us), the file store, two writer processes, and the errors of an absent Secret Service.
@Suite(.desktop) struct TokenCacheTests {
    let issuer = URL(string: "https://127.0.0.1/tenant")!
    let clientID = "token-cache-tests"

    func entry(subject: String, accessToken: String, refreshToken: String?, scopes: [String] = ["openid", "profile", "offline_access", "api.read"])
        throws -> TokenCache.Entry
    {
        let now = Int(Date().timeIntervalSince1970)
        let token = TestTokenSigner.token([
            "iss": issuer.absoluteString, "sub": subject, "aud": clientID, "iat": now, "exp": now + 3600,
            "preferred_username": "\(subject)@example.com", "name": "Person \(subject)",
        ])
        let claims = try #require(TokenCache.claims(of: token))
        return TokenCache.Entry(
            account: Account(claims: claims), scopes: scopes, accessToken: accessToken, expiresOn: Date().addingTimeInterval(3600),
            idToken: token, idTokenClaims: claims, refreshToken: refreshToken)
    }

    func application(_ storage: any TokenCacheStorage) throws -> PublicClientApplication {
        try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
            defaultScopes: ["openid", "profile", "offline_access"], networkTimeout: 5, tokenCacheStorage: storage))
    }

    // MARK: - File store

    @Test func fileStoreIsOwnerOnlyAndReplacedWhole() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("org.example.App")
        let storage = FileTokenCacheStorage(fileURL: folder.appendingPathComponent("cache.json"))
        #expect(try storage.load() == nil)

        let app = try application(storage)
        try await app.cache.store(try entry(subject: "dana", accessToken: "at-1", refreshToken: "rt-1"), now: Date())
        let fileAttributes = try FileManager.default.attributesOfItem(atPath: storage.fileURL.path)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect((fileAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        // Only the cache and its lock: no temporary file left behind by the atomic replace.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["cache.json", "cache.json.lock"])
        let saved = try #require(try storage.load())
        let parsed = try JSONSerialization.jsonObject(with: saved) as? [String: Any]
        #expect(Set(parsed?.keys ?? [:].keys) == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"])
    }

    @Test(arguments: ["", ".", "..", "a/b"])
    func fileStoreRefusesAnApplicationIDThatIsNotAPlainName(_ applicationID: String) {
        #expect(throws: TokenCacheStorageError.self) { try FileTokenCacheStorage(applicationID: applicationID) }
    }

    @Test func fileStoreOfAnApplicationIsInItsDataFolder() async throws {
        let dataHome = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dataHome) }
        _ = try await TokenCacheScenario.succeed(.writeLoop, ["vera", "1"], environment: [
            "STORE": "app:org.example.App", "XDG_DATA_HOME": dataHome.path, "ISSUER": issuer.absoluteString, "CLIENT_ID": clientID,
        ])
        let folder = dataHome.appendingPathComponent("org.example.App")
        let file = folder.appendingPathComponent("msal-token-cache.json")
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? NSNumber
        #expect(fileMode?.intValue == 0o600)
        #expect(folderMode?.intValue == 0o700)
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("rt-vera-1"))
    }

    @Test func aWriterWaitsForTheLockABoundedTime() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lock = TokenCacheLockFile(url: directory.appendingPathComponent("cache.lock"), timeout: 0.3)
        // flock locks belong to an open file: a second open, even in this process, must wait.
        let started = Date()
        let inner: Result<Void, TokenCacheStorageError> = try lock.withLock { () throws(TokenCacheStorageError) in
            do throws(TokenCacheStorageError) {
                try lock.withLock { () throws(TokenCacheStorageError) in }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(let error) = inner else {
            Issue.record("a second writer took a held lock")
            return
        }
        #expect(error.code == .timedOut)
        #expect(Date().timeIntervalSince(started) < 5)
        try lock.withLock { () throws(TokenCacheStorageError) in }  // released: free again
    }

    @Test func theDefaultStoreIsTheSecretServiceKeyedByTheClientID() throws {
        let app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!))
        let storage = try #require(app.cache.storage as? SecretServiceTokenCacheStorage)
        #expect(storage.schemaName == SecretServiceTokenCacheStorage.defaultSchemaName)
        #expect(storage.attributes == ["client_id": clientID])
    }

    @Test func aSecretServiceStoreWithoutAttributesIsRefused() {
        #expect(throws: TokenCacheStorageError.self) { try SecretServiceTokenCacheStorage(attributes: [:]) }
        #expect(throws: TokenCacheStorageError.self) { try SecretServiceTokenCacheStorage(schemaName: "", attributes: ["a": "b"]) }
    }

    // MARK: - Behaviour over a store

    /// An app's own store (the public protocol only) that records the threads it is called on.
    final class RecordingStorage: TokenCacheStorage {
        let inner = InMemoryTokenCacheStorage()
        let calls = Mutex<[(name: String, onMainThread: Bool)]>([])  // onMainThread: main thread or main-queue job
        func load() throws(TokenCacheStorageError) -> Data? {
            calls.withLock { $0.append(("load", MainContext.isCurrent)) }
            return try inner.load()
        }
        func save(_ data: Data) throws(TokenCacheStorageError) {
            calls.withLock { $0.append(("save", MainContext.isCurrent)) }
            try inner.save(data)
        }
        func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
            calls.withLock { $0.append(("lock", MainContext.isCurrent)) }
            return try inner.withWriterLock(body)
        }
    }

    @MainActor
    @Test func anAppsOwnStoreIsUsedAndNeverCalledOnTheMainThread() async throws {
        #expect(MainContext.isCurrent, "the test runs where main-actor code runs")
        let storage = RecordingStorage()
        let app = try application(storage)
        let stored = try entry(subject: "uma", accessToken: "at-uma", refreshToken: "rt-uma")
        try await app.cache.store(stored, now: Date())
        #expect(try await app.allAccounts() == [stored.account])
        #expect(try await app.acquireTokenSilent(with: .init(scopes: [], account: stored.account)).accessToken == "at-uma")
        #expect(try await app.remove(stored.account))
        let calls = storage.calls.withLock { $0 }
        #expect(calls.map(\.name) == ["lock", "load", "save", "load", "load", "lock", "load", "save"])
        #expect(calls.allSatisfy { !$0.onMainThread })
    }

    @Test func aNewApplicationOverTheSameStoreFindsTheAccountAndItsToken() async throws {
        let storage = InMemoryTokenCacheStorage()
        let first = try application(storage)
        let stored = try entry(subject: "erin", accessToken: "at-erin", refreshToken: "rt-erin")
        try await first.cache.store(stored, now: Date())

        let second = try application(storage)
        #expect(second.accounts.isEmpty, "nothing read yet")
        let accounts = try await second.allAccounts()
        #expect(accounts == [stored.account])
        #expect(second.accounts == [stored.account])
        let result = try await second.acquireTokenSilent(with: .init(scopes: ["api.read"], account: stored.account))
        #expect(result.accessToken == "at-erin")
        #expect(result.refreshToken == "rt-erin")
        #expect(result.idTokenClaims.name == "Person erin")

        // Another store: nothing.
        #expect(try await application(InMemoryTokenCacheStorage()).allAccounts().isEmpty)
    }

    @Test func aRotatedRefreshTokenReplacesTheOldOne() async throws {
        let storage = InMemoryTokenCacheStorage()
        let app = try application(storage)
        try await app.cache.store(try entry(subject: "finn", accessToken: "at-1", refreshToken: "rt-old"), now: Date())
        try await app.cache.store(try entry(subject: "finn", accessToken: "at-2", refreshToken: "rt-new", scopes: ["openid", "other"]), now: Date())
        let document = MSALTokenCacheDocument(data: try storage.load())
        let secrets = document.entries(.refreshToken).compactMap { $0.fields[string: "secret"] }
        #expect(secrets == ["rt-new"])
        #expect(document.entries(.accessToken).count == 2, "one access token per scope set")
    }

    @Test func removeDeletesTheAccountsEntriesFromTheStore() async throws {
        let storage = InMemoryTokenCacheStorage()
        let app = try application(storage)
        let gone = try entry(subject: "gus", accessToken: "at-gus", refreshToken: "rt-gus")
        let kept = try entry(subject: "hana", accessToken: "at-hana", refreshToken: "rt-hana")
        try await app.cache.store(gone, now: Date())
        try await app.cache.store(kept, now: Date())
        #expect(try await app.remove(gone.account))
        #expect(try await app.remove(gone.account) == false)
        #expect(try await app.allAccounts() == [kept.account])
        let saved = try #require(try storage.load())
        let text = String(decoding: saved, as: UTF8.self)
        #expect(!text.contains("gus"))
        #expect(text.contains("rt-hana"))
        do throws(WebAuthError) {
            _ = try await app.acquireTokenSilent(with: .init(scopes: [], account: gone.account))
            Issue.record("a removed account still got a token")
        } catch {
            #expect(error.code == .interactionRequired)
        }
    }

    @Test func fieldsAndSectionsOfOtherLibrariesSurviveARewrite() async throws {
        let storage = InMemoryTokenCacheStorage()
        let foreign = """
            {"AccessToken": {"someone-login.example.com-accesstoken-other-app-common-user.read": {
                "credential_type": "AccessToken", "secret": "foreign-at", "home_account_id": "someone",
                "environment": "login.example.com", "client_id": "other-app", "realm": "common", "target": "user.read",
                "cached_at": "1", "expires_on": "2", "key_id": "kid-1", "requested_claims": {"x": [1, 2.5, true, null]}}},
             "Account": {}, "FutureSection": {"k": {"v": 12345678901234}}}
            """
        try storage.save(Data(foreign.utf8))
        let app = try application(storage)
        try await app.cache.store(try entry(subject: "ivan", accessToken: "at-ivan", refreshToken: "rt-ivan"), now: Date())
        let saved = try #require(try storage.load())
        let object = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
        let future = object["FutureSection"] as? [String: [String: Any]]
        #expect((future?["k"]?["v"] as? NSNumber)?.int64Value == 12_345_678_901_234)
        let accessTokens = try #require(object["AccessToken"] as? [String: [String: Any]])
        let theirs = try #require(accessTokens["someone-login.example.com-accesstoken-other-app-common-user.read"])
        #expect(theirs["key_id"] as? String == "kid-1")
        #expect(theirs["secret"] as? String == "foreign-at")
        #expect((theirs["requested_claims"] as? [String: [Any]])?["x"]?.count == 4)
        #expect(accessTokens.count == 2)
    }

    @Test func unreadableContentIsAnEmptyCacheThatTheNextWriteReplaces() async throws {
        let storage = InMemoryTokenCacheStorage()
        try storage.save(Data("not json {".utf8))
        let app = try application(storage)
        #expect(try await app.allAccounts().isEmpty)
        try await app.cache.store(try entry(subject: "jo", accessToken: "at-jo", refreshToken: nil), now: Date())
        #expect(try await app.allAccounts().map(\.subject) == ["jo"])
    }

    // MARK: - msal-python

    @Test func msalPythonFindsTheAccountAndRefreshTokenWeWrote() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.json")
        let app = try application(FileTokenCacheStorage(fileURL: file))
        let stored = try entry(subject: "kim", accessToken: "at-kim", refreshToken: "rt-kim")
        try await app.cache.store(stored, now: Date())

        let found = try await TokenCacheScenario.msalPython(["read", file.path, "--home-account-id", "kim", "--client-id", clientID])
        let accounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts.first?["username"] as? String == "kim@example.com")
        #expect(accounts.first?["environment"] as? String == "127.0.0.1")
        #expect(accounts.first?["realm"] as? String == "tenant")
        let refreshTokens = try #require(found["refresh_tokens"] as? [[String: Any]])
        #expect(refreshTokens.map { $0["secret"] as? String } == [TokenCacheScenario.fingerprint("rt-kim")])
        let accessTokens = try #require(found["access_tokens"] as? [[String: Any]])
        #expect(accessTokens.map { $0["secret"] as? String } == [TokenCacheScenario.fingerprint("at-kim")])
        #expect(found["id_tokens"] as? Int == 1)
    }

    @Test func weReadACacheMSALPythonWrote() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.json")
        let written = try await TokenCacheScenario.msalPython(["write", file.path, "--authority", issuer.absoluteString, "--client-id", clientID])
        let subject = try #require(written["sub"] as? String)

        let app = try application(FileTokenCacheStorage(fileURL: file))
        let accounts = try await app.allAccounts()
        #expect(accounts.map(\.subject) == [subject])
        #expect(accounts.first?.username == written["username"] as? String)
        #expect(accounts.first?.issuer == issuer.absoluteString)
        let account = try #require(accounts.first)
        // A valid access token for User.Read is in the cache: no request reaches the (absent) server.
        let result = try await app.acquireTokenSilent(with: .init(scopes: ["User.Read"], account: account))
        #expect(TokenCacheScenario.fingerprint(result.accessToken) == written["access_token"] as? String)
        #expect(TokenCacheScenario.fingerprint(result.refreshToken) == written["refresh_token"] as? String)
        #expect(result.idTokenClaims.name == "Carol Example")

        // What we write back keeps msal-python's own fields, and msal-python still reads it.
        try await app.cache.store(try entry(subject: "lee", accessToken: "at-lee", refreshToken: "rt-lee"), now: Date())
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(text.contains("\"account_source\""))
        let again = try await TokenCacheScenario.msalPython(["read", file.path, "--home-account-id", subject])
        #expect((again["refresh_tokens"] as? [[String: Any]])?.first?["secret"] as? String == written["refresh_token"] as? String)
    }

    // MARK: - Processes

    @Test func twoProcessesWritingAtOnceLoseNothing() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.json")
        let environment = ["STORE": "file:\(file.path)", "ISSUER": issuer.absoluteString, "CLIENT_ID": clientID]
        async let first = TokenCacheScenario.succeed(.writeLoop, ["writer-a", "100"], environment: environment)
        async let second = TokenCacheScenario.succeed(.writeLoop, ["writer-b", "100"], environment: environment)
        let (a, b) = try await (first, second)
        #expect(a["written"] as? Int == 100 && b["written"] as? Int == 100)
        try checkBothWriters(in: try Data(contentsOf: file))
    }

    /// The cache parses, and holds each writer's 100th access and refresh token and nothing older.
    func checkBothWriters(in data: Data) throws {
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: Any]]])
        let accessTokens = Set(document["AccessToken"]?.values.compactMap { $0["secret"] as? String } ?? [])
        let refreshTokens = Set(document["RefreshToken"]?.values.compactMap { $0["secret"] as? String } ?? [])
        #expect(accessTokens == ["at-writer-a-100", "at-writer-b-100"])
        #expect(refreshTokens == ["rt-writer-a-100", "rt-writer-b-100"])
        #expect(document["Account"]?.count == 2)
    }

    // MARK: - Secret Service

    @Test func noSessionBusIsAClearErrorAndNoFile() async throws {
        let home = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await TokenCacheScenario.run(.writeLoop, ["olga", "1"], environment: [
            "STORE": "secret:org.example.Test:absent", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(home.path)/no-bus",
            "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.path,
        ])
        let error = try #require(result["error"] as? [String: Any])
        #expect(error["code"] as? String == "providerUnavailable")
        #expect(error["storageCode"] as? String == "unavailable")
        let message = try #require(error["message"] as? String)
        #expect(message.contains("Secret Service"))
        #expect(message.contains("choose another TokenCacheStorage"))
        #expect((error["elapsed"] as? Double ?? 99) < 10, "failed at once")
        #expect(try filesHoldingTokens(under: home).isEmpty, "no plain-text fall-back")
    }

    /// The regular files under `folder` that hold a cache entry (the keyring's own files are encrypted).
    func filesHoldingTokens(under folder: URL) throws -> [String] {
        let paths = FileManager.default.subpaths(atPath: folder.path) ?? []
        return paths.filter { path in
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path) else { return false }
            return String(decoding: data, as: UTF8.self).contains("credential_type")
        }
    }

    @Test func aKeyringThatCannotBeUnlockedIsAnErrorNotAHang() async throws {
        // A bus on which the keyring daemon is started on demand, with no login keyring and no
        // display for its unlock prompt: the person cannot (so does not) unlock it.
        let home = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let output = try await ScriptRunner.run(
            "env",
            ["-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "dbus-run-session", "--", TokenCacheScenario.program, TokenCacheCommand.writeLoop.rawValue, "mo", "1"],
            environment: [
                "STORE": "secret:org.example.Test:locked", "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_RUNTIME_DIR": home.path, "SCENARIO_TIMEOUT": "60",
            ], timeout: 70)
        let line = try #require(output.standardOutput.split(separator: "\n").last { $0.hasPrefix("RESULT ") })
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any])
        let error = try #require(result["error"] as? [String: Any], "stored without an unlocked keyring: \(result)")
        #expect(error["code"] as? String == "providerUnavailable")
        #expect(["unavailable", "locked", "timedOut"].contains(error["storageCode"] as? String))
        #expect((error["elapsed"] as? Double ?? 99) < 20, "ended without a hang")
        #expect(try filesHoldingTokens(under: home).isEmpty, "no plain-text fall-back")
    }

    @Test func theSecretServiceKeepsTheCacheAcrossProcessesAndApartByAttributes() async throws {
        try await KeyringSession.with { keyring in
            var environment = keyring.environment
            environment["STORE"] = "secret:org.example.Test:first"
            environment["ISSUER"] = issuer.absoluteString
            environment["CLIENT_ID"] = clientID
            _ = try await TokenCacheScenario.succeed(.writeLoop, ["nina", "2"], environment: environment)
            let accounts = try await TokenCacheScenario.succeed(.accounts, environment: environment)
            #expect(accounts["accounts"] as? [String] == ["nina@\(issuer.absoluteString)"])

            var other = environment
            other["STORE"] = "secret:org.example.Test:second"
            #expect(try await TokenCacheScenario.succeed(.accounts, environment: other)["accounts"] as? [String] == [])

            let removed = try await TokenCacheScenario.succeed(.remove, ["nina@\(issuer.absoluteString)"], environment: environment)
            #expect(removed["removed"] as? Bool == true)
            #expect(try await TokenCacheScenario.succeed(.accounts, environment: environment)["accounts"] as? [String] == [])

            // clear() deletes the item itself; a second clear finds none.
            _ = try await TokenCacheScenario.succeed(.writeLoop, ["nina", "1"], environment: environment)
            #expect(try await TokenCacheScenario.succeed(.clear, environment: environment)["cleared"] as? Bool == true)
            #expect(try await TokenCacheScenario.succeed(.clear, environment: environment)["cleared"] as? Bool == false)
            #expect(try await TokenCacheScenario.succeed(.accounts, environment: environment)["accounts"] as? [String] == [])
        }
    }

    /// `gdbus call` on the keyring session's bus; its output.
    func gdbus(_ keyring: KeyringSession, _ arguments: [String]) async throws -> String {
        let output = try await ScriptRunner.run("gdbus", ["call", "--session"] + arguments, environment: keyring.environment, timeout: 20)
        guard output.status == 0 else { throw GlewlwydError("gdbus \(arguments.joined(separator: " ")) failed: \(output.standardError)") }
        return output.standardOutput
    }

    /// A keyring session whose login collection was locked after `quinn` was stored.
    func withLockedKeyring(display: Bool, _ body: (KeyringSession, [String: String]) async throws -> Void) async throws {
        try await KeyringSession.with(display: display) { keyring in
            var environment = keyring.environment
            environment["STORE"] = "secret:org.example.Test:locked"
            environment["ISSUER"] = issuer.absoluteString
            environment["CLIENT_ID"] = clientID
            _ = try await TokenCacheScenario.succeed(.writeLoop, ["quinn", "1"], environment: environment)
            _ = try await gdbus(keyring, [
                "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                "--method", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/collection/login']",
            ])
            try await body(keyring, environment)
        }
    }

    @Test func aLockedKeyringThePersonDoesNotUnlockIsAnError() async throws {
        // No display for the keyring's prompt: it ends dismissed, as when the person presses Cancel.
        try await withLockedKeyring(display: false) { _, environment in
            for (command, words) in [(TokenCacheCommand.accounts, []), (.writeLoop, ["rosa", "1"])] {
                let result = try await TokenCacheScenario.run(command, words, environment: environment)
                let error = try #require(result["error"] as? [String: Any], "\(command) worked on a locked keyring: \(result)")
                #expect(error["code"] as? String == "providerUnavailable")
                #expect(error["storageCode"] as? String == "locked")
                #expect((error["message"] as? String)?.contains("unlock") == true)
            }
        }
    }

    @Test func aLockedKeyringWhosePromptNobodyAnswersTimesOut() async throws {
        try #require(ProcessInfo.processInfo.environment["DISPLAY"] != nil, "run the tests under xvfb-run: the prompt needs a display")
        // The prompt shows on the test display and nobody answers it.
        try await withLockedKeyring(display: true) { _, environment in
            var environment = environment
            environment["STORE_TIMEOUT"] = "3"
            let result = try await TokenCacheScenario.run(.accounts, environment: environment, timeout: 40)
            let error = try #require(result["error"] as? [String: Any], "read a locked keyring: \(result)")
            #expect(error["code"] as? String == "providerUnavailable")
            #expect(error["storageCode"] as? String == "timedOut")
            #expect((error["elapsed"] as? Double ?? 99) < 15, "ended by the 3 s time limit, not a hang")
        }
    }

    @Test func aSecretServiceThatNeverAnswersTimesOut() async throws {
        try await KeyringSession.with { keyring in
            let owner = try await gdbus(keyring, [
                "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets",
            ])
            // "(uint32 1234,)"
            let digits = owner.components(separatedBy: "uint32 ").last?.prefix { $0.isNumber } ?? ""
            let pid = try #require(Int32(digits), "no pid in \(owner)")
            #expect(pid > 1)
            kill(pid, SIGSTOP)  // the keyring daemon of this test's own session
            defer { kill(pid, SIGCONT) }
            var environment = keyring.environment
            environment["STORE"] = "secret:org.example.Test:frozen"
            environment["STORE_TIMEOUT"] = "2"
            let result = try await TokenCacheScenario.run(.accounts, environment: environment, timeout: 40)
            let error = try #require(result["error"] as? [String: Any], "read from a keyring that cannot answer: \(result)")
            #expect(error["code"] as? String == "providerUnavailable")
            #expect(error["storageCode"] as? String == "timedOut")
            #expect((error["elapsed"] as? Double ?? 99) < 15, "ended by the 2 s time limit, not a hang")
        }
    }

    @Test func twoProcessesWritingToTheSecretServiceAtOnceLoseNothing() async throws {
        try await KeyringSession.with { keyring in
            var environment = keyring.environment
            environment["STORE"] = "secret:org.example.Test:concurrent"
            environment["ISSUER"] = issuer.absoluteString
            environment["CLIENT_ID"] = clientID
            async let first = TokenCacheScenario.succeed(.writeLoop, ["writer-a", "100"], environment: environment)
            async let second = TokenCacheScenario.succeed(.writeLoop, ["writer-b", "100"], environment: environment)
            _ = try await (first, second)
            let dump = keyring.directory.appendingPathComponent("dump.json")
            _ = try await TokenCacheScenario.succeed(.dump, [dump.path], environment: environment)
            try checkBothWriters(in: try Data(contentsOf: dump))
        }
    }
}
