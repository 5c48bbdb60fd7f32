import Foundation
import ScenarioSupport
import MicrosoftIdentityBroker
import Synchronization
import Testing
import WebviewHost

@testable import SignIn

/// An app that enables the broker still signs in when the broker cannot serve it: the usual
/// web flow (the ``ScriptedBrowserProvider`` plugin against the real Glewlwyd server) runs, and
/// its tokens go to the app's cache as without a broker. Part of ``GlewlwydSignInTests``: one
/// Glewlwyd server per test process at a time.
extension GlewlwydSignInTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
    }

    /// Signs in with `broker` registered and `usesTokenBroker` on; returns the result, the events
    /// seen by the app's sessions, and the token store.
    func signInWithBrokerEnabled(_ broker: MicrosoftIdentityBroker, usesTokenBroker: Bool = true) async throws -> (AuthenticationResult, [String], InMemoryTokenCacheStorage) {
        let storage = InMemoryTokenCacheStorage()
        let events = Log()
        let browser = provider(.signIn([alice]))
        let result = try await WebviewProviderRegistry.withIsolatedRegistry {
            try await TokenBrokerRegistry.withIsolatedRegistry {
                WebviewProviderRegistry.register(browser)
                TokenBrokerRegistry.register(broker)
                var configuration = PublicClientApplicationConfiguration(
                    clientID: server.clientID, authority: server.issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
                    defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15, tokenCacheStorage: storage)
                configuration.usesTokenBroker = usesTokenBroker
                let app = try PublicClientApplication(configuration: configuration)
                let observation = WebAuthSession.observeAll { session, event in
                    if session.provider?.id == browser.id || session.provider == nil { events.entries.withLock { $0.append("\(event)") } }
                }
                defer { observation.invalidate() }
                return try await app.acquireToken(with: .init(scopes: [], webviewParameters: .init(webviewType: .provider(browser.id))))
            }
        }
        return (result, events.entries.withLock { $0 }, storage)
    }

    @Test(.timeLimit(.minutes(10))) func brokerEnabledButNoBrokerOnTheBusMeansTheWebFlow() async throws {
        let double = try await BrokerDouble.start(["absent": true])
        defer { double.stop() }
        // The broker would serve this authority (its host is named), but nobody owns its name.
        let broker = MicrosoftIdentityBroker(busAddress: double.address, authorityHosts: [server.issuer.host!])
        #expect(await broker.availability(for: server.issuer) != .available)
        let (result, events, storage) = try await signInWithBrokerEnabled(broker)
        #expect(result.account.issuer == server.issuer.absoluteString)
        #expect(result.refreshToken != nil)
        #expect(!events.contains { $0.hasPrefix("willSwitchToBrokerApp") })
        #expect(try storage.load() != nil)  // the web flow's tokens are cached as usual
        #expect(double.requests.isEmpty)
    }

    @Test(.timeLimit(.minutes(10))) func brokerEnabledButTheBrokerDeclinesTheAuthorityMeansTheWebFlow() async throws {
        let double = try await BrokerDouble.start()
        defer { double.stop() }
        let broker = MicrosoftIdentityBroker(busAddress: double.address)  // Entra ID hosts only
        let (result, events, storage) = try await signInWithBrokerEnabled(broker)
        #expect(result.account.username == server.userEmail)
        #expect(!events.contains { $0.hasPrefix("willSwitchToBrokerApp") })
        #expect(try storage.load() != nil)
        #expect(double.requests.isEmpty)  // not even asked
    }

    @Test(.timeLimit(.minutes(10))) func aRunningBrokerIsNotUsedUnlessTheAppTurnsItOn() async throws {
        let double = try await BrokerDouble.start()
        defer { double.stop() }
        let broker = MicrosoftIdentityBroker(busAddress: double.address, authorityHosts: [server.issuer.host!])
        #expect(await broker.availability(for: server.issuer) == .available)  // it would serve this authority
        let (result, events, storage) = try await signInWithBrokerEnabled(broker, usesTokenBroker: false)
        #expect(result.refreshToken != nil)
        #expect(!events.contains { $0.hasPrefix("willSwitchToBrokerApp") })
        #expect(try storage.load() != nil)
        #expect(!double.requests.contains { $0.method.hasPrefix("acquireToken") })
    }
}
