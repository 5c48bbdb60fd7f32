import Foundation
import ScenarioSupport
import Testing
import TestTraits
#if canImport(Glibc)
import Glibc
#endif

/// `client_info` with a provider that behaves as Microsoft Entra ID does (`Tests/Fixtures/TokenCache/fake_entra.py`
/// on 127.0.0.1: its discovery document has `cloud_instance_name`, its token endpoint answers
/// `client_info=1` with `client_info`, and the person is a guest whose `sub` is pairwise): the
/// library asks for it in every request and keys the account as MSAL does, `<oid>.<home tenant>`,
/// so msal-python finds it. Each step runs in a process of its own (`TokenCacheScenarios`).
@Suite(.desktop) struct ClientInfoSignInTests {
    /// The fake provider, running until ``stop()``.
    struct FakeEntra {
        let directory: URL
        let child: CleanSpawn
        let facts: [String: String]

        /// `plain`: a discovery document without Entra's own keys (not taken for Entra ID).
        static func start(plain: Bool = false) async throws -> FakeEntra {
            let directory = try TokenCacheScenario.temporaryDirectory()
            let script = TokenCacheScenario.scriptsDirectory.appendingPathComponent("fake_entra.py").path
            var environment = ProcessInfo.processInfo.environment
            if plain { environment["FAKE_ENTRA_PLAIN"] = "1" }
            let server = try await FixtureServer.start(["python3", script, "serve", directory.path], in: directory, environment: environment)
            return FakeEntra(directory: directory, child: server.child, facts: server.facts)
        }

        var requests: [String] {
            ((try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? "")
                .split(separator: "\n").map(String.init)
        }

        func stop() {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
            if child.exitStatusIfEnded() == nil { kill(child.pid, SIGTERM) }
            _ = child.waitForExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func anEntraAccountIsKeyedByClientInfoAsMSALKeysIt() async throws {
        let entra = try await FakeEntra.start()
        defer { entra.stop() }
        let issuer = try #require(entra.facts["issuer"])
        let (oid, homeTenant, tenant, sub) = (entra.facts["oid"]!, entra.facts["homeTenant"]!, entra.facts["tenant"]!, entra.facts["sub"]!)
        let file = entra.directory.appendingPathComponent("cache.json")
        let environment = [
            "STORE": "file:\(file.path)", "ISSUER": issuer, "CLIENT_ID": "entra-app",
            "BROWSER_SCRIPT": TokenCacheScenario.scriptsDirectory.appendingPathComponent("fake_entra.py").path,
        ]

        let signIn = try await TokenCacheScenario.succeed(.signIn, environment: environment)
        #expect(signIn["subject"] as? String == sub)
        #expect(signIn["homeAccountID"] as? String == "\(oid).\(homeTenant)", "uid.utid from client_info, not the pairwise sub")
        let accountID = try #require(signIn["account"] as? String)

        // msal-python finds the account under MSAL's home_account_id, with MSAL's environment and realm.
        let found = try await TokenCacheScenario.msalPython(["read", file.path, "--home-account-id", "\(oid).\(homeTenant)", "--client-id", "entra-app"])
        let accounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        #expect(accounts.first?["environment"] as? String == "127.0.0.1")
        #expect(accounts.first?["realm"] as? String == tenant)
        #expect(accounts.first?["local_account_id"] as? String == oid)
        #expect((found["refresh_tokens"] as? [[String: Any]])?.map { $0["secret"] as? String } == [signIn["refreshToken"] as? String])

        // A new process lists the account and renews it; the key stays.
        let renewed = try await TokenCacheScenario.succeed(.silent, [accountID, "force"], environment: environment)
        #expect(renewed["homeAccountID"] as? String == "\(oid).\(homeTenant)")
        #expect(renewed["accessToken"] as? String != signIn["accessToken"] as? String)
        #expect(renewed["accounts"] as? [String] == [accountID])

        // client_info=1 went with the authorization request and with each token request.
        #expect(entra.requests == [
            "authorize client_info=1", "token authorization_code client_info=1", "token refresh_token client_info=1",
        ])
    }
}
