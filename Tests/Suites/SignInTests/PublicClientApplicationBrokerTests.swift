import Foundation
import MicrosoftIdentityBroker
import SignIn
import Synchronization
import Testing
import WebviewHost

/// `PublicClientApplication` with ``PublicClientApplicationConfiguration/usesTokenBroker`` on and
/// `MicrosoftIdentityBroker` registered, against the D-Bus double of the broker.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PublicClientApplicationBrokerTests {
    static let authority = URL(string: "https://login.microsoftonline.com/contoso-tid")!

    /// The steps of the sessions made for one app (its redirect URI is unique), as observers saw them.
    final class Events: Sendable {
        private struct State {
            var steps: [String] = []
            var waiting: (count: Int, continuation: CheckedContinuation<Void, Never>)?
        }
        private let state = Mutex(State())
        let redirect = URL(string: "http://127.0.0.1/broker-\(UUID().uuidString)")!
        nonisolated(unsafe) private var observation: WebAuthObservation?

        init() {
            let redirect = redirect
            observation = WebAuthSession.observeAll { [weak self] session, event in
                guard session.requestedRedirectURI == redirect else { return }
                self?.append("\(event)")
            }
        }

        var all: [String] { state.withLock { $0.steps } }

        private func append(_ step: String) {
            let woken = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.steps.append(step)
                guard let waiting = state.waiting, state.steps.count >= waiting.count else { return nil }
                state.waiting = nil
                return waiting.continuation
            }
            woken?.resume()
        }

        /// Waits until `count` steps arrived (the terminal one is delivered on the main queue),
        /// failing after ``BrokerDouble/deadline``.
        func settle(count: Int) async throws {
            let timer = Task { [weak self] in
                try? await Task.sleep(for: BrokerDouble.deadline)
                let stuck = self?.state.withLock { state in
                    defer { state.waiting = nil }
                    return state.waiting?.continuation
                }
                stuck?.resume()
            }
            defer { timer.cancel() }
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.steps.count >= count { return true }
                    state.waiting = (count, continuation)
                    return false
                }
                if done { continuation.resume() }
            }
            if all.count < count { throw BrokerDoubleError("only these steps arrived: \(all)") }
        }
    }

    /// Runs `body` with the double, an app that uses the broker, its token store, and its events.
    func withBrokeredApp<T>(
        _ scenario: [String: Any] = [:],
        _ body: (BrokerDouble, PublicClientApplication, InMemoryTokenCacheStorage, Events) async throws -> T
    ) async throws -> T {
        let double = try await BrokerDouble.start(scenario)
        defer { double.stop() }
        return try await WebviewProviderRegistry.withIsolatedRegistry {
            try await TokenBrokerRegistry.withIsolatedRegistry {
                TokenBrokerRegistry.register(MicrosoftIdentityBroker(busAddress: double.address))
                let events = Events()
                let storage = InMemoryTokenCacheStorage()
                var configuration = PublicClientApplicationConfiguration(
                    clientID: MicrosoftIdentityBrokerTests.clientID, authority: Self.authority, redirectURI: events.redirect,
                    tokenCacheStorage: storage)
                configuration.usesTokenBroker = true
                let app = try PublicClientApplication(configuration: configuration)
                return try await body(double, app, storage, events)
            }
        }
    }

    func failure(_ body: () async throws -> Void) async -> WebAuthError? {
        do {
            try await body()
            return nil
        } catch let error as WebAuthError {
            return error
        } catch {
            Issue.record("not a WebAuthError: \(error)")
            return nil
        }
    }

    @Test func interactiveSignInGoesToTheBrokerWithWillSwitchToBrokerAppFirst() async throws {
        try await withBrokeredApp { double, app, storage, events in
            let result = try await app.acquireToken(with: .init(scopes: ["https://graph.microsoft.com/.default"], loginHint: "alice@contoso.example"))
            #expect(result.accessToken == "broker-access-token")
            #expect(result.refreshToken == nil)
            #expect(result.idTokenClaims.subject == "alice-pairwise-sub")
            #expect(result.account.username == "alice@contoso.example")
            let request = try await double.request("acquireTokenInteractively").object
            let parameters = try #require(request["authParameters"] as? [String: Any])
            #expect(parameters["requestedScopes"] as? [String] == ["https://graph.microsoft.com/.default"], "what the app asked for (Edge, sso-mib)")
            #expect(parameters["authorizationType"] as? Int == 6)
            #expect(parameters["authority"] as? String == Self.authority.absoluteString)
            try await events.settle(count: 2)
            #expect(
                events.all == [
                    "willSwitchToBrokerApp(\(Self.authority.absoluteString))", "didComplete(\(Self.authority.absoluteString))",
                ])
            // The broker keeps its tokens: nothing went to the app's cache.
            #expect(try storage.load() == nil)
            #expect(app.accounts == [result.account])
        }
    }

    @Test func silentAccountsAndRemoveGoToTheBroker() async throws {
        try await withBrokeredApp(["shape": "2.0.1"]) { double, app, storage, _ in
            let accounts = try await app.allAccounts()
            #expect(accounts.map(\.username) == ["alice@contoso.example"])
            #expect(app.accounts == accounts)
            _ = try await double.request("getAccounts")

            let silent = try await app.acquireTokenSilent(with: .init(scopes: ["User.Read"], account: accounts[0]))
            #expect(silent.accessToken == "broker-access-token")
            #expect(silent.account == accounts[0])
            let request = try await double.request("acquireTokenSilently").object
            let parameters = try #require(request["authParameters"] as? [String: Any])
            #expect((parameters["account"] as? [String: Any])?["homeAccountId"] as? String == "\(MicrosoftIdentityBrokerTests.object).\(MicrosoftIdentityBrokerTests.tenant)")
            #expect(parameters["authorizationType"] as? Int == 1)
            #expect(parameters["requestedScopes"] as? [String] == ["User.Read"])

            #expect(try await app.remove(accounts[0]))
            _ = try await double.request("removeAccount")
            #expect(try storage.load() == nil)
        }
    }

    @Test func cancelCurrentInteractiveSessionEndsTheBrokersFlow() async throws {
        try await withBrokeredApp(["acquireTokenInteractively": ["hang": true]]) { double, app, _, events in
            let signIn = Task { try await app.acquireToken(with: .init(scopes: [])) }
            let interactive = try await double.request("acquireTokenInteractively")
            app.cancelCurrentInteractiveSession()
            let error = await failure { _ = try await signIn.value }
            #expect(error?.code == .canceled)
            #expect(try await double.request("cancelInteractiveFlow").correlationID == interactive.correlationID)
            try await events.settle(count: 2)
            #expect(events.all == ["willSwitchToBrokerApp(\(Self.authority.absoluteString))", "didFail(canceled)"])
        }
    }

    @Test func cancellingTheTaskEndsTheBrokersFlow() async throws {
        try await withBrokeredApp(["acquireTokenInteractively": ["hang": true]]) { double, app, _, events in
            let signIn = Task { try await app.acquireToken(with: .init(scopes: [])) }
            _ = try await double.request("acquireTokenInteractively")
            signIn.cancel()
            let error = await failure { _ = try await signIn.value }
            #expect(error?.code == .canceled)
            _ = try await double.request("cancelInteractiveFlow")
            try await events.settle(count: 2)
            #expect(events.all.last == "didFail(canceled)")
        }
    }

    @Test func aSecondSignInWhileTheBrokersRunsIsRefused() async throws {
        try await withBrokeredApp(["acquireTokenInteractively": ["hang": true]]) { double, app, _, _ in
            let first = Task { try await app.acquireToken(with: .init(scopes: [])) }
            _ = try await double.request("acquireTokenInteractively")
            let second = await failure { _ = try await app.acquireToken(with: .init(scopes: [])) }
            #expect(second?.code == .sessionAlreadyInProgress)
            first.cancel()
            _ = await failure { _ = try await first.value }
        }
    }

    @Test func theBrokersRefusalReachesTheAppAsDidFail() async throws {
        let refusal: [String: Any] = ["reply": ["brokerTokenResponse": ["error": ["status": 2, "subStatus": 65001, "errorCode": 0, "tag": 0]]]]
        try await withBrokeredApp(["acquireTokenInteractively": refusal]) { _, app, _, events in
            let error = await failure { _ = try await app.acquireToken(with: .init(scopes: [])) }
            #expect(error?.code == .consentRequired)
            #expect((error?.underlyingError as? TokenBrokerError)?.status == "2")
            try await events.settle(count: 2)
            #expect(events.all == ["willSwitchToBrokerApp(\(Self.authority.absoluteString))", "didFail(consentRequired)"])
        }
    }

    @Test func theBrokerVanishingMidSignInEndsItWithBrokerUnavailable() async throws {
        try await withBrokeredApp(["acquireTokenInteractively": ["vanish": "exit"]]) { _, app, _, events in
            let error = await failure { _ = try await app.acquireToken(with: .init(scopes: [])) }
            #expect(error?.code == .brokerUnavailable)
            try await events.settle(count: 2)
            #expect(events.all.last == "didFail(brokerUnavailable)")
        }
    }

    /// The README's fallback: a silent call the broker answers "interaction required" (status 2,
    /// as broker 2.5.2 answered in siemens/linux-entra-sso issue 129) throws `interactionRequired`,
    /// and the app signs in interactively through the broker.
    @Test(arguments: MicrosoftIdentityBrokerTests.shapes)
    func aSilentCallAnsweredInteractionRequiredLetsTheAppSignInInteractively(_ shape: String) async throws {
        try await withBrokeredApp(["shape": shape, "acquireTokenSilently": ["status": 2]]) { double, app, _, events in
            let account = try #require(try await app.allAccounts().first)
            let result: AuthenticationResult
            do {
                result = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: ["User.Read"], account: account))
                Issue.record("the silent call succeeded")
            } catch let error as WebAuthError where error.code == .interactionRequired {
                result = try await app.acquireToken(with: InteractiveTokenParameters(scopes: ["User.Read"]))
            }
            #expect(result.accessToken == "broker-access-token")
            #expect(result.account.subject == account.subject)
            _ = try await double.request("acquireTokenSilently")
            _ = try await double.request("acquireTokenInteractively")
            try await events.settle(count: 2)
            #expect(events.all.last == "didComplete(\(Self.authority.absoluteString))")
        }
    }
}
