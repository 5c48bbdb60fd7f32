import Foundation
import ScenarioSupport
import Testing

@testable import SignIn

/// One cache file shared with msal-python (the `msal` package, a real
/// `msal.PublicClientApplication`) against the real Glewlwyd server, whose authority has a port
/// and a two-segment path (`http://127.0.0.1:<port>/api/oidc`): each side lists the account the
/// other signed in and renews with the other's refresh token. msal-python refuses a non-https
/// authority in one place (`authority.canonicalize`); `msal_interop.py` lets it past that check
/// by having canonicalize compute host and tenant for the https form of the same URL, with
/// msal's own code, so the cache keys are those msal computes.
extension GlewlwydSignInTests {
    func msalPython(_ command: String, _ file: URL, _ extra: [String] = []) async throws -> [String: Any] {
        let result = try await TokenCacheScenario.msalPython(
            [command, file.path, "--authority", server.issuer.absoluteString, "--client-id", server.clientID] + extra, timeout: 150)
        if let error = result["error"] { throw GlewlwydError("msal-python \(command) failed: \(error) \(result["error_description"] ?? "")") }
        return result
    }

    @Test func msalPythonListsAndRenewsTheAccountWeSignedIn() async throws {
        #expect(server.issuer.port != nil && server.issuer.path == "/api/oidc", "the shape under test")
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shared.json")
        let environment = scenarioEnvironment(store: "file:\(file.path)")
        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        let accountID = try #require(signIn["account"] as? String)
        let subject = try #require(signIn["subject"] as? String)

        // msal-python lists our account and finds our access token without the server.
        let before = try await issuedAccessTokens()
        let cached = try await msalPython("silent", file)
        let accounts = try #require(cached["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["home_account_id"] as? String } == [subject])
        #expect(accounts.first?["environment"] as? String == "127.0.0.1")
        #expect(accounts.first?["realm"] as? String == "api")
        #expect(cached["token_source"] as? String == "cache")
        #expect(cached["access_token"] as? String == signIn["accessToken"] as? String)
        #expect(try await issuedAccessTokens() == before)

        // msal-python renews with our refresh token: one grant at the server.
        let renewed = try await msalPython("silent", file, ["--force"])
        #expect(renewed["token_source"] as? String == "identity_provider")
        #expect(renewed["access_token"] as? String != signIn["accessToken"] as? String)
        #expect(try await issuedAccessTokens() == before + 1)

        // A new process of ours still lists the account after msal-python rewrote the file, and renews.
        let ours = try await TokenCacheScenario.succeed(.silent, [accountID, "force"], environment: environment)
        #expect(ours["accounts"] as? [String] == [accountID])
        #expect(try await issuedAccessTokens() == before + 2)
    }

    @Test func weListAndRenewTheAccountMSALPythonSignedIn() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shared.json")
        // msal-python signs alice in through its own authorization code flow (the scripted browser at the page).
        let signIn = try await msalPython("sign-in", file, [
            "--redirect-uri", "http://127.0.0.1:23682/callback", "--browser-script", GlewlwydServer.browserScript.path,
            "--username", server.username, "--password", server.password,
        ])
        let subject = try #require(signIn["sub"] as? String)
        let accountID = "\(subject)@\(server.issuer.absoluteString)"
        let environment = scenarioEnvironment(store: "file:\(file.path)")

        // A process of ours lists msal-python's account and uses its access token without the server.
        let before = try await issuedAccessTokens()
        let listed = try await TokenCacheScenario.succeed(.accounts, environment: environment)
        #expect(listed["accounts"] as? [String] == [accountID])
        let cached = try await TokenCacheScenario.succeed(.silent, [accountID], environment: environment)
        #expect(cached["accessToken"] as? String == signIn["access_token"] as? String)
        #expect(cached["refreshToken"] as? String == signIn["refresh_token"] as? String)
        #expect(try await issuedAccessTokens() == before)

        // We renew with msal-python's refresh token: one grant at the server.
        let renewed = try await TokenCacheScenario.succeed(.silent, [accountID, "force"], environment: environment)
        #expect(renewed["accessToken"] as? String != signIn["access_token"] as? String)
        #expect(try await issuedAccessTokens() == before + 1)

        // msal-python reads what we wrote: its account, and our renewed access token from the cache.
        let again = try await msalPython("silent", file)
        #expect((again["accounts"] as? [[String: Any]])?.map { $0["home_account_id"] as? String } == [subject])
        #expect(again["token_source"] as? String == "cache")
        #expect(again["access_token"] as? String == renewed["accessToken"] as? String)
        #expect(try await issuedAccessTokens() == before + 1)
    }

    @Test func anOIDCServerThatIsNotMicrosoftEntraIsNotSentClientInfo() async throws {
        // Its discovery document has no cloud_instance_name and its host is none of Entra's.
        #expect(try await makeApplication().authority.sendsClientInfo() == false)
    }
}
