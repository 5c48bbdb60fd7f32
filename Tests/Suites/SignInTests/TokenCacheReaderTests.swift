import Foundation
import ScenarioSupport
import Testing
import TokenCache

// No SignIn here: what an app (or a companion of an msal-python app) that links only the
// TokenCache product reads of a store that SignIn wrote in another process.

/// The stores through ``TokenCacheReader``, written by `TokenCacheScenarios`' `PublicClientApplication`.
@Suite struct TokenCacheReaderTests {
    let issuer = URL(string: "https://127.0.0.1/tenant")!
    let clientID = "token-cache-reader-tests"

    @Test func listsTheAccountsAndReadsTheTokensOfAFileStoreWithoutSignIn() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("org.example.App/cache.json")
        let environment = ["STORE": "file:\(file.path)", "ISSUER": issuer.absoluteString, "CLIENT_ID": clientID]
        for writer in ["nadia", "omar"] {
            _ = try await TokenCacheScenario.succeed(.writeLoop, [writer, "2"], environment: environment)
        }

        let reader = TokenCacheReader(storage: FileTokenCacheStorage(fileURL: file), clientID: clientID, authority: issuer)
        let accounts = try await reader.accounts()
        #expect(accounts.map(\.identifier) == ["nadia@\(issuer.absoluteString)", "omar@\(issuer.absoluteString)"])
        #expect(accounts.first?.username == "nadia@example.com")

        let nadia = try #require(accounts.first)
        let tokens = try #require(try await reader.tokens(for: nadia, scopes: ["openid"]))
        #expect(tokens.accessToken == "at-nadia-2")
        #expect(tokens.refreshToken == "rt-nadia-2")
        #expect(tokens.account == nadia)
        #expect(try await reader.tokens(for: nadia, scopes: ["api.write"]) == nil)

        // Another app's client ID finds nothing of this one's.
        let other = TokenCacheReader(storage: FileTokenCacheStorage(fileURL: file), clientID: "another-app", authority: issuer)
        #expect(try await other.accounts().isEmpty)
    }

    @Test func aStoreThatCannotBeReadThrowsItsError() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.json")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o666]))
        let reader = TokenCacheReader(storage: FileTokenCacheStorage(fileURL: file), clientID: clientID, authority: issuer)
        let error = await #expect(throws: TokenCacheStorageError.self) { try await reader.accounts() }
        #expect(error?.code == .unsafePermissions)
    }
}

extension GlewlwydSignInTests {
    /// A real sign-in (Glewlwyd, through the scripted browser) in another process, then its store
    /// read here through the TokenCache product alone.
    @Test func aSignInsFileStoreIsReadThroughTheTokenCacheProductAlone() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("org.example.App/cache.json")
        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: scenarioEnvironment(store: "file:\(file.path)"))
        let accountID = try #require(signIn["account"] as? String)

        let reader = TokenCacheReader(storage: FileTokenCacheStorage(fileURL: file), clientID: server.clientID, authority: server.issuer)
        let accounts = try await reader.accounts()
        #expect(accounts.map(\.identifier) == [accountID])
        let account = try #require(accounts.first)
        #expect(account.subject == signIn["subject"] as? String)
        // The scenario reports fingerprints of the tokens, never the tokens.
        let tokens = try #require(try await reader.tokens(for: account))
        #expect(TokenCacheScenario.fingerprint(tokens.accessToken) == signIn["accessToken"] as? String)
        #expect(TokenCacheScenario.fingerprint(tokens.refreshToken) == signIn["refreshToken"] as? String)
        #expect(tokens.idTokenClaims.subject == account.subject)
    }
}
