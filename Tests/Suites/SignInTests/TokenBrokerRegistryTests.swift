import Foundation
import Synchronization
import Testing
import WebviewHost

@testable import SignIn

/// Brokers are plugins: a third party's `TokenBroker` registered beside Microsoft's is chosen by
/// priority and availability, without D-Bus.
@Suite struct TokenBrokerRegistryTests {
    /// A broker written outside the library: answers from memory, and records what it was asked.
    final class CompanyBroker: TokenBroker {
        let id: String
        let priority: Int
        let displayName = "Company broker (test)"
        let answer: TokenBrokerAvailability
        let asked = Mutex<[String]>([])

        init(id: String, priority: Int, answer: TokenBrokerAvailability) {
            self.id = id
            self.priority = priority
            self.answer = answer
        }

        func availability(for authority: URL) async -> TokenBrokerAvailability {
            asked.withLock { $0.append("availability") }
            return answer
        }

        func acquireTokenInteractively(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult {
            asked.withLock { $0.append("interactive \(request.scopes.joined(separator: " "))") }
            let claims = #"{"iss":"https://broker.example","sub":"s","aud":"app","exp":4102444800,"iat":1700000000}"#
            let idToken = "eyJhbGciOiJub25lIn0." + Base64URL.encode(Data(claims.utf8)) + ".c2ln"
            return TokenBrokerResult(
                accessToken: "company-token", expiresOn: Date(timeIntervalSince1970: 4_102_444_800), scopes: request.scopes,
                idToken: idToken, account: Account(subject: "s", issuer: "https://broker.example", username: "carol", name: nil))
        }

        func acquireTokenSilently(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult {
            throw WebAuthError(.interactionRequired, "test")
        }

        func accounts(for client: TokenBrokerClient) async throws(WebAuthError) -> [Account] { [] }
        func signOut(_ account: Account, for client: TokenBrokerClient) async throws(WebAuthError) {}
    }

    @Test func registeredBrokersAreListedByPriorityAndCanBeRemoved() async {
        await TokenBrokerRegistry.withIsolatedRegistry {
            TokenBrokerRegistry.register(CompanyBroker(id: "low", priority: 0, answer: .available))
            TokenBrokerRegistry.register(CompanyBroker(id: "high", priority: 10, answer: .available))
            #expect(TokenBrokerRegistry.brokers.map(\.id) == ["high", "low"])
            #expect(TokenBrokerRegistry.unregister("high"))
            #expect(!TokenBrokerRegistry.unregister("high"))
            #expect(TokenBrokerRegistry.brokers.map(\.id) == ["low"])
        }
        #expect(!TokenBrokerRegistry.brokers.contains { $0.id == "low" })  // the isolated registry is gone
    }

    @Test func theFirstAvailableBrokerSignsInAndAnUnavailableOneIsSkipped() async throws {
        let unavailable = CompanyBroker(id: "down", priority: 10, answer: .unavailable(reason: "not running"))
        let company = CompanyBroker(id: "company", priority: 5, answer: .available)
        let result = try await WebviewProviderRegistry.withIsolatedRegistry {
            try await TokenBrokerRegistry.withIsolatedRegistry {
                TokenBrokerRegistry.register(unavailable)
                TokenBrokerRegistry.register(company)
                var configuration = PublicClientApplicationConfiguration(
                    clientID: "app", authority: URL(string: "https://broker.example")!, redirectURI: URL(string: "http://127.0.0.1/cb")!,
                    defaultScopes: [], tokenCacheStorage: InMemoryTokenCacheStorage())
                configuration.usesTokenBroker = true
                let app = try PublicClientApplication(configuration: configuration)
                return try await app.acquireToken(with: .init(scopes: ["files.read"]))
            }
        }
        #expect(result.accessToken == "company-token")
        #expect(result.account.username == "carol")
        #expect(unavailable.asked.withLock { $0 } == ["availability"])
        #expect(company.asked.withLock { $0 } == ["availability", "interactive files.read"])
    }
}
